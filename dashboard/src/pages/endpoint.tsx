import { Page } from '../components';
export function EndpointPage() {
  return <Page title="Endpoint">…</Page>;
}
