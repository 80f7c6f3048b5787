import { Page } from '../components';
export function EventsPage() {
  return <Page title="Events">…</Page>;
}
