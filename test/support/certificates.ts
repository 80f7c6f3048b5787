import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** PEM files of a certificate authority or of a certificate it signed. */
export interface Pem {
  cert: string;
  key: string;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A self-signed CA (EC P-256, one day) in `dir`. */
export function makeCa(dir: string, name: string): Pem {
  fs.mkdirSync(dir, { recursive: true });
  const key = path.join(dir, `${name}.key`);
  const cert = path.join(dir, `${name}.crt`);
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key], dir);
  openssl(
    ['req', '-x509', '-new', '-key', key, '-sha256', '-days', '1', '-subj', `/CN=${name}`, '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-out', cert],
    dir,
  );
  return { cert, key };
}

/**
 * A leaf certificate signed by `ca`, valid for `names` (DNS names and IP addresses) and
 * for both server and client authentication (a Temporal server presents its own to itself).
 */
export function makeCert(dir: string, ca: Pem, name: string, names: string[] = [name]): Pem {
  const key = path.join(dir, `${name}.key`);
  const csr = path.join(dir, `${name}.csr`);
  const cert = path.join(dir, `${name}.crt`);
  const ext = path.join(dir, `${name}.ext`);
  const alt = names.map((n) => (/^[\d.]+$/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
  fs.writeFileSync(ext, `subjectAltName=${alt}\nextendedKeyUsage=serverAuth,clientAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n`);
  // PKCS#8 ("BEGIN PRIVATE KEY"): what both the Rust core and PostgreSQL read.
  openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', key], dir);
  openssl(['req', '-new', '-key', key, '-subj', `/CN=${name}`, '-out', csr], dir);
  openssl(['x509', '-req', '-in', csr, '-CA', ca.cert, '-CAkey', ca.key, '-CAcreateserial', '-days', '1', '-sha256', '-extfile', ext, '-out', cert], dir);
  return { cert, key };
}
