import type { ComponentType } from 'react';
import { DeadLettersPage } from './pages/dead-letters';
import { EndpointPage } from './pages/endpoint';
import { EndpointsPage } from './pages/endpoints';
import { EventPage } from './pages/event';
import { EventsPage } from './pages/events';

export interface RouteDef {
  /** wouter pattern, e.g. `/endpoints/:id`. */
  path: string;
  component: ComponentType;
  /** Shown in the side navigation when set, in `order`. */
  nav?: { label: string; order: number };
}

/**
 * Every signed-in page. Add a page by adding one entry here (dashboard/README.md).
 * Order matters only where patterns overlap: put `/x/new` before `/x/:id`.
 */
export const ROUTES: RouteDef[] = [
  { path: '/events', component: EventsPage, nav: { label: 'Events', order: 10 } },
  { path: '/events/:id', component: EventPage },
  { path: '/dead-letters', component: DeadLettersPage, nav: { label: 'Dead letters', order: 20 } },
  { path: '/endpoints', component: EndpointsPage, nav: { label: 'Endpoints', order: 30 } },
  { path: '/endpoints/:id', component: EndpointPage },
];

export const HOME = '/events';
