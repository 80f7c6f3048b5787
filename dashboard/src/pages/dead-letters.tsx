import { Page } from '../components';
export function DeadLettersPage() {
  return <Page title="Dead letters">…</Page>;
}
