import { Page } from '../components';
export function EventPage() {
  return <Page title="Event">…</Page>;
}
