import { Entity, ManyToOne, type Opt, Property, Unique } from '@mikro-orm/core';
import type { RoutingRule } from '../common/types';
import { BaseEntity } from '../db/base.entity';
import { Destination } from '../destinations/destination.entity';
import { WebhookEndpoint } from '../endpoints/endpoint.entity';
import { MessageTemplate } from '../templates/message-template.entity';
import { Transform } from '../transforms/transform.entity';

/** Links a source endpoint to a destination; the header prefix comes from the project. */
@Entity({ tableName: 'endpoint_destinations' })
@Unique({ properties: ['endpoint', 'destination'] })
export class EndpointDestination extends BaseEntity {
  @ManyToOne(() => WebhookEndpoint, { deleteRule: 'cascade' })
  endpoint!: WebhookEndpoint;

  @ManyToOne(() => Destination, { deleteRule: 'cascade', index: true })
  destination!: Destination;

  @ManyToOne(() => MessageTemplate, { nullable: true, deleteRule: 'set null' })
  template?: MessageTemplate | null;

  @ManyToOne(() => Transform, { nullable: true, deleteRule: 'set null' })
  transform?: Transform | null;

  @Property({ type: 'jsonb', default: '[]' })
  routingRules: RoutingRule[] & Opt = [];
}
