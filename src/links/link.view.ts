import { z } from 'zod';
import type { RoutingRule } from '../common/types';
import type { EndpointDestination } from './endpoint-destination.entity';

/** The wire form of an endpoint–destination link; `header_prefix` is the project's. */
export const linkView = z.object({
  id: z.uuid(),
  endpoint_id: z.uuid(),
  destination_id: z.uuid(),
  template_id: z.uuid().nullable(),
  transform_id: z.uuid().nullable(),
  routing_rules: z.array(z.record(z.string(), z.unknown())).describe('Tried in order; the first match picks template and/or transform'),
  header_prefix: z.string(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type LinkView = Omit<z.infer<typeof linkView>, 'routing_rules'> & { routing_rules: RoutingRule[] };

export function toLinkView(link: EndpointDestination, headerPrefix: string): LinkView {
  return {
    id: link.id,
    endpoint_id: link.endpoint.id,
    destination_id: link.destination.id,
    template_id: link.template?.id ?? null,
    transform_id: link.transform?.id ?? null,
    routing_rules: link.routingRules,
    header_prefix: headerPrefix,
    created_at: link.createdAt.toISOString(),
    updated_at: link.updatedAt.toISOString(),
  };
}
