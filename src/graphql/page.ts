import { type ClassType, Field, Int, ArgsType, ObjectType } from 'type-graphql';
import { DEFAULT_LIMIT } from '../common/pagination';

/** GraphQL twin of `{ data, next_cursor }`: subclass with `@ObjectType() class XPage extends PageOf(XType) {}`. */
export function PageOf<T extends object>(item: ClassType<T>) {
  @ObjectType()
  abstract class Page {
    @Field(() => [item])
    data!: T[];

    @Field(() => String, { name: 'nextCursor', nullable: true, description: 'Pass as `cursor` to get the next page; null on the last page.' })
    next_cursor!: string | null;
  }
  return Page;
}

@ArgsType()
export class PageArgs {
  @Field(() => Int, { defaultValue: DEFAULT_LIMIT, description: 'At most 200.' })
  limit: number = DEFAULT_LIMIT;

  @Field(() => String, { nullable: true })
  cursor?: string;
}
