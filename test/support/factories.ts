import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppContainer } from '../../src/app/container';
import { uuidv7 } from '../../src/common/ids';
import { fanOutEvents } from '../../src/deliveries/fan-out';
import { NOTIFY } from '../../src/common/notify-channels';
import type { DestinationType, Plan, Role } from '../../src/common/types';
import { Destination } from '../../src/destinations/destination.entity';
import { WebhookEndpoint } from '../../src/endpoints/endpoint.entity';
import { EndpointDestination } from '../../src/links/endpoint-destination.entity';
import { OrganizationMember } from '../../src/organizations/organization-member.entity';
import { Organization } from '../../src/organizations/organization.entity';
import { Project } from '../../src/projects/project.entity';
import { User } from '../../src/users/user.entity';

/**
 * Rows for tests, inserted through the ORM on a forked EntityManager.
 * Secrets are sealed with the container's SecretBox, exactly as the services do.
 */
const suffix = () => randomBytes(4).toString('hex');

export interface Workspace {
  user: User;
  organization: Organization;
  project: Project;
}

export async function createWorkspace(em: EntityManager, opts: { plan?: Plan; role?: Role; email?: string } = {}): Promise<Workspace> {
  const user = em.create(User, { email: opts.email ?? `user-${suffix()}@example.test`, name: 'Test User' });
  const organization = em.create(Organization, { name: `Org ${suffix()}`, plan: opts.plan ?? 'free' });
  em.create(OrganizationMember, { organization, user, role: opts.role ?? 'owner' });
  const project = em.create(Project, { organization, user, name: 'Default', slug: `default-${suffix()}` });
  await em.flush();
  return { user, organization, project };
}

export async function createEndpoint(
  container: AppContainer,
  em: EntityManager,
  project: Project,
  fields: Partial<Omit<WebhookEndpoint, 'signingSecretEnc'>> & { signingSecret?: string } = {},
): Promise<{ endpoint: WebhookEndpoint; signingSecret: string }> {
  const { signingSecret = `whsec_${randomBytes(24).toString('hex')}`, ...rest } = fields;
  const endpoint = em.create(WebhookEndpoint, {
    project,
    name: 'Test endpoint',
    slug: `ep-${suffix()}`,
    signingSecretEnc: container.secrets.seal(signingSecret),
    ...rest,
  });
  await em.flush();
  return { endpoint, signingSecret };
}

export async function createDestination(
  container: AppContainer,
  em: EntityManager,
  project: Project,
  fields: Partial<Destination> & { type?: DestinationType; webhookUrl?: string; signingSecret?: string; botToken?: string } = {},
): Promise<Destination> {
  const { webhookUrl, signingSecret, botToken, ...rest } = fields;
  const destination = em.create(Destination, {
    project,
    name: 'Test destination',
    type: 'webhook',
    webhookUrlEnc: webhookUrl ? container.secrets.seal(webhookUrl) : null,
    webhookHost: webhookUrl ? new URL(webhookUrl).host : null,
    signingSecretEnc: signingSecret ? container.secrets.seal(signingSecret) : null,
    botTokenEnc: botToken ? container.secrets.seal(botToken) : null,
    ...rest,
  });
  await em.flush();
  return destination;
}

export async function linkEndpoint(
  em: EntityManager,
  endpoint: WebhookEndpoint,
  destination: Destination,
  fields: Partial<EndpointDestination> = {},
): Promise<EndpointDestination> {
  const link = em.create(EndpointDestination, { endpoint, destination, ...fields });
  await em.flush();
  return link;
}

/**
 * Inserts an event the way ingress commits one (`status`, `dispatched_at = NULL`
 * and a NOTIFY to the outbox dispatcher in one transaction). Returns its id.
 */
export async function insertEvent(
  container: AppContainer,
  endpoint: WebhookEndpoint,
  fields: { payload?: unknown; payloadText?: string; eventType?: string; headers?: Record<string, string>; status?: 'received' | 'filtered' } = {},
): Promise<string> {
  const id = uuidv7();
  await container.orm.em.getConnection().getKnex().transaction(async (trx) => {
    await trx.raw(
      `insert into events (id, endpoint_id, project_id, organization_id, event_type, payload, headers, status)
       select ?, ep.id, ep.project_id, p.organization_id, ?, ?::json, ?::json, ?
         from webhook_endpoints ep join projects p on p.id = ep.project_id where ep.id = ?`,
      [
        id,
        fields.eventType ?? '',
        fields.payloadText ?? JSON.stringify(fields.payload ?? { hello: 'world' }),
        JSON.stringify(fields.headers ?? { 'content-type': 'application/json' }),
        fields.status ?? 'received',
        endpoint.id,
      ],
    );
    await trx.raw(`select pg_notify('${NOTIFY.eventsCommitted}', '')`);
  });
  return id;
}

/**
 * Runs the outbox fan-out until nothing is left, as a worker process's dispatcher would:
 * events get their search rows (and received ones their deliveries). For tests whose API runs without a worker.
 */
export async function fanOutPending(container: AppContainer): Promise<number> {
  const knex = container.orm.em.getConnection().getKnex();
  let total = 0;
  for (let n = -1; n !== 0; total += n) n = (await fanOutEvents(knex, 1000)).events;
  return total;
}
