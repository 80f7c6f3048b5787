/**
 * Custom search attributes set on every delivery workflow, so a user can find
 * a delivery in the Temporal web UI (e.g. `RelayEventId = "<uuid>"`).
 * All are Keyword attributes; `relay migrate` and the dev launcher register them.
 */
export const SEARCH_ATTRIBUTES = {
  eventId: 'RelayEventId',
  destinationId: 'RelayDestinationId',
  endpointSlug: 'RelayEndpointSlug',
  projectId: 'RelayProjectId',
  eventType: 'RelayEventType',
  deliveryStatus: 'RelayDeliveryStatus',
} as const;

export const SEARCH_ATTRIBUTE_NAMES: string[] = Object.values(SEARCH_ATTRIBUTES);
