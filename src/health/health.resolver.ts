import { Field, ObjectType, Query, Resolver } from 'type-graphql';

@ObjectType()
class ServiceInfo {
  @Field()
  name!: string;

  @Field()
  version!: string;
}

@Resolver()
export class HealthResolver {
  @Query(() => ServiceInfo, { description: 'Name and version of the relay answering.' })
  serviceInfo(): ServiceInfo {
    return { name: 'webhook-relay', version: process.env.npm_package_version ?? '0.1.0' };
  }
}
