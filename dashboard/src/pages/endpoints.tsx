import { Page } from '../components';
export function EndpointsPage() {
  return <Page title="Endpoints">…</Page>;
}
