import { ApiKey } from '../api-keys/api-key.entity';
import { RefreshToken } from '../auth/refresh-token.entity';
import { DeliveryAttempt } from '../deliveries/delivery-attempt.entity';
import { Delivery } from '../deliveries/delivery.entity';
import { Destination } from '../destinations/destination.entity';
import { WebhookEndpoint } from '../endpoints/endpoint.entity';
import { Event } from '../events/event.entity';
import { FilterCondition } from '../filters/filter-condition.entity';
import { FilterGroup } from '../filters/filter-group.entity';
import { EndpointDestination } from '../links/endpoint-destination.entity';
import { OAuthClientCode } from '../oauth/oauth-client-code.entity';
import { OAuthConnection } from '../oauth/oauth-connection.entity';
import { OAuthState } from '../oauth/oauth-state.entity';
import { UserIdentity } from '../oauth/user-identity.entity';
import { Issue } from '../issues/issue.entity';
import { Invite } from '../organizations/invite.entity';
import { OrganizationMember } from '../organizations/organization-member.entity';
import { Organization } from '../organizations/organization.entity';
import { Project } from '../projects/project.entity';
import { EventSchema, SchemaChange, SourceActivity } from '../schemas/event-schema.entity';
import { MessageTemplate } from '../templates/message-template.entity';
import { Transform } from '../transforms/transform.entity';
import { User } from '../users/user.entity';

/** Every entity the ORM knows; add new ones here. */
export const entities = [
  User,
  RefreshToken,
  Organization,
  OrganizationMember,
  Invite,
  Project,
  WebhookEndpoint,
  FilterGroup,
  FilterCondition,
  Destination,
  EndpointDestination,
  MessageTemplate,
  Transform,
  ApiKey,
  OAuthConnection,
  OAuthState,
  OAuthClientCode,
  UserIdentity,
  Event,
  Delivery,
  DeliveryAttempt,
  Issue,
  EventSchema,
  SchemaChange,
  SourceActivity,
];
