import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

const api = process.env.RELAY_API_URL ?? 'http://127.0.0.1:3000';
const GZIP_BUDGET_BYTES = 500 * 1024;

/** Prints the gzipped size of the JavaScript and fails the build above the budget. */
function gzipBudget(): Plugin {
  return {
    name: 'relay-gzip-budget',
    apply: 'build',
    generateBundle(_options, bundle) {
      let total = 0;
      for (const file of Object.values(bundle)) {
        if (file.type === 'chunk') total += gzipSync(file.code).length;
      }
      const kb = (total / 1024).toFixed(1);
      process.stdout.write(`dashboard JavaScript: ${kb} KB gzipped (budget ${GZIP_BUDGET_BYTES / 1024} KB)\n`);
      if (total > GZIP_BUDGET_BYTES) this.error(`JavaScript is ${kb} KB gzipped, over the ${GZIP_BUDGET_BYTES / 1024} KB budget`);
    },
  };
}

// No @vitejs/plugin-react: Vite compiles TSX itself (oxc) with React's automatic runtime.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  plugins: [gzipBudget()],
  build: { outDir: 'dist', emptyOutDir: true, assetsDir: 'assets', sourcemap: false, chunkSizeWarningLimit: 1024 },
  server: {
    // `npm run dev:dashboard`: the API runs separately (`npm start`); these paths go to it.
    proxy: {
      '/graphql': { target: api, ws: true, changeOrigin: true },
      '/v1': { target: api, changeOrigin: true },
      '/hooks': { target: api, changeOrigin: true },
      '/healthz': { target: api, changeOrigin: true },
    },
  },
});
