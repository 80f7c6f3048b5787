import type { ZodType } from 'zod';
import { loginInput, refreshInput, signupInput, updateMeInput } from '../accounts/account.service';
import { sessionView, userView } from '../accounts/account.view';
import { createApiKeyInput } from '../api-keys/api-key.service';
import { apiKeyView, createdApiKeyView } from '../api-keys/api-key.view';
import { bulkActionView, bulkPreviewInput, bulkPreviewView, bulkStartInput } from '../bulk-actions/bulk-action.service';
import { triggerEventBody, triggeredEventView } from '../cli-sessions/cli-trigger.service';
import { replayDeadLettersInput } from '../deliveries/delivery-operations.service';
import { attemptView, deliveryView } from '../deliveries/delivery.view';
import { rotateDestinationSecretInput } from '../destinations/destination-secret.service';
import { createDestinationInput, updateDestinationInput } from '../destinations/destination.service';
import { destinationView } from '../destinations/destination.view';
import { rotateEndpointSecretInput } from '../endpoints/endpoint-secret.service';
import { testEventView } from '../endpoints/endpoint-test.service';
import { createEndpointInput, updateEndpointInput } from '../endpoints/endpoint.service';
import { endpointView } from '../endpoints/endpoint.view';
import { replayResultView } from '../events/event.service';
import { eventDetailView, eventListItemView } from '../events/event.view';
import { createFilterGroupInput, updateFilterGroupInput } from '../filters/filter-group.service';
import { filterGroupView } from '../filters/filter-group.view';
import { createLinkInput, updateLinkInput } from '../links/link.service';
import { linkView } from '../links/link.view';
import { clientTokenInput } from '../oauth/client-sign-in.service';
import { updateConnectionInput } from '../oauth/oauth-connection.service';
import { authorizationView, oauthConnectionView } from '../oauth/oauth-connection.view';
import { startSignInInput } from '../oauth/oauth.service';
import { acceptInviteInput, createInviteInput } from '../organizations/invite.service';
import { changeRoleInput } from '../organizations/member.service';
import { changePlanInput, createOrganizationInput } from '../organizations/organization.service';
import { createdInviteView, invitePreviewView, inviteView, memberView, organizationView } from '../organizations/organization.view';
import { projectMetricsView } from '../project-metrics/project-metrics.view';
import { createProjectInput, updateProjectInput } from '../projects/project.service';
import { projectView } from '../projects/project.view';
import { resourceHealthView } from '../resource-health/resource-health.service';
import { createTemplateInput, previewTemplateInput, updateTemplateInput } from '../templates/template.service';
import { previewResultView, templateView } from '../templates/template.view';
import { createTransformInput, previewTransformInput, updateTransformInput } from '../transforms/transform.service';
import { transformPreviewView, transformView } from '../transforms/transform.view';

/**
 * The names of the `/v1` schemas in the OpenAPI document (`components.schemas`), so that generated
 * clients get `Endpoint`, `EndpointCreate`, `EndpointPage`, … instead of anonymous types. Each is the
 * very zod schema a route validates with (or answers with); a list's `XPage` is named after its item.
 * A route whose body or answer is not named here fails test/contracts/openapi.test.ts.
 */
export const NAMED_SCHEMAS: Record<string, ZodType> = {
  // resources
  User: userView,
  Session: sessionView,
  Organization: organizationView,
  Member: memberView,
  Invite: inviteView,
  InviteCreated: createdInviteView,
  InvitePreview: invitePreviewView,
  Project: projectView,
  ProjectMetrics: projectMetricsView,
  ApiKey: apiKeyView,
  ApiKeyCreated: createdApiKeyView,
  OAuthConnection: oauthConnectionView,
  OAuthAuthorization: authorizationView,
  Endpoint: endpointView,
  EndpointTestEvent: testEventView,
  ResourceHealth: resourceHealthView,
  FilterGroup: filterGroupView,
  Destination: destinationView,
  Link: linkView,
  Template: templateView,
  TemplatePreview: previewResultView,
  Transform: transformView,
  TransformPreview: transformPreviewView,
  Event: eventDetailView,
  EventSummary: eventListItemView,
  EventReplay: replayResultView,
  TriggeredEvent: triggeredEventView,
  Delivery: deliveryView,
  DeliveryAttempt: attemptView,
  BulkAction: bulkActionView,
  BulkActionPreview: bulkPreviewView,
  // inputs
  SignupRequest: signupInput,
  LoginRequest: loginInput,
  RefreshRequest: refreshInput,
  MeUpdate: updateMeInput,
  OrganizationInput: createOrganizationInput,
  PlanChange: changePlanInput,
  MemberUpdate: changeRoleInput,
  InviteCreate: createInviteInput,
  InviteTokenRequest: acceptInviteInput,
  ProjectCreate: createProjectInput,
  ProjectUpdate: updateProjectInput,
  ApiKeyUpdate: createApiKeyInput,
  OAuthSignInRequest: startSignInInput,
  OAuthClientTokenRequest: clientTokenInput,
  OAuthConnectionUpdate: updateConnectionInput,
  EndpointCreate: createEndpointInput,
  EndpointUpdate: updateEndpointInput,
  EndpointSecretRotate: rotateEndpointSecretInput,
  FilterGroupCreate: createFilterGroupInput,
  FilterGroupUpdate: updateFilterGroupInput,
  DestinationCreate: createDestinationInput,
  DestinationUpdate: updateDestinationInput,
  DestinationSecretRotate: rotateDestinationSecretInput,
  LinkCreate: createLinkInput,
  LinkUpdate: updateLinkInput,
  TemplateCreate: createTemplateInput,
  TemplateUpdate: updateTemplateInput,
  TemplatePreviewRequest: previewTemplateInput,
  TransformCreate: createTransformInput,
  TransformUpdate: updateTransformInput,
  TransformPreviewRequest: previewTransformInput,
  EventTrigger: triggerEventBody,
  DeadLetterReplayRequest: replayDeadLettersInput,
  BulkActionCreate: bulkStartInput,
  BulkActionPreviewRequest: bulkPreviewInput,
};
