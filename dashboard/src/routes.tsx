import type { ComponentType } from 'react';
import { ApiKeysPage } from './pages/api-keys';
import { DeadLettersPage } from './pages/dead-letters';
import { DestinationPage, DestinationsPage } from './pages/destinations';
import { EndpointPage } from './pages/endpoint';
import { EndpointsPage } from './pages/endpoints';
import { EventPage } from './pages/event';
import { EventsPage } from './pages/events';
import { FirstRunPage } from './pages/first-run';
import { IssuePage, IssuesPage, OpenIssuesCount } from './pages/issues';
import { MembersPage } from './pages/members';
import { MetricsPage } from './pages/metrics';
import { TemplatePage, TemplatesPage } from './pages/templates';
import { TransformPage, TransformsPage } from './pages/transforms';

export interface RouteDef {
  /** wouter pattern, e.g. `/endpoints/:id`. */
  path: string;
  component: ComponentType;
  /** Shown in the side navigation when set, in `order`; `count` renders beside the label (e.g. open issues). */
  nav?: { label: string; order: number; count?: ComponentType };
}

/**
 * Every signed-in page. Add a page by adding one entry here (dashboard/README.md).
 * Order matters only where patterns overlap: put `/x/new` before `/x/:id`.
 */
export const ROUTES: RouteDef[] = [
  { path: '/start', component: FirstRunPage, nav: { label: 'Get started', order: 5 } },
  { path: '/events', component: EventsPage, nav: { label: 'Events', order: 10 } },
  { path: '/events/:id', component: EventPage },
  { path: '/issues', component: IssuesPage, nav: { label: 'Issues', order: 15, count: OpenIssuesCount } },
  { path: '/issues/:id', component: IssuePage },
  { path: '/dead-letters', component: DeadLettersPage, nav: { label: 'Dead letters', order: 20 } },
  { path: '/endpoints', component: EndpointsPage, nav: { label: 'Endpoints', order: 30 } },
  { path: '/endpoints/:id', component: EndpointPage },
  { path: '/destinations', component: DestinationsPage, nav: { label: 'Destinations', order: 40 } },
  { path: '/destinations/:id', component: DestinationPage },
  { path: '/templates', component: TemplatesPage, nav: { label: 'Templates', order: 50 } },
  { path: '/templates/:id', component: TemplatePage },
  { path: '/transforms', component: TransformsPage, nav: { label: 'Transforms', order: 60 } },
  { path: '/transforms/:id', component: TransformPage },
  { path: '/project-metrics', component: MetricsPage, nav: { label: 'Metrics', order: 70 } },
  { path: '/members', component: MembersPage, nav: { label: 'Members', order: 80 } },
  { path: '/api-keys', component: ApiKeysPage, nav: { label: 'API keys', order: 90 } },
];

export const HOME = '/events';
