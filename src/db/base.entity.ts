import { type Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { uuidv7 } from '../common/ids';

/** UUIDv7 id plus created/updated timestamps (timestamptz, UTC). */
export abstract class BaseEntity {
  @PrimaryKey({ type: 'uuid' })
  id: string = uuidv7();

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();

  @Property({ type: 'timestamptz', defaultRaw: 'now()', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
