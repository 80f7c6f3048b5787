import { Arg, Field, ID, InputType, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import type { UserContext } from '../auth/access';
import type { RequestContext } from '../common/request-context';
import { parseInput, snakeKeys } from '../common/validation';
import { Scoped } from '../graphql/scoped';
import { login, loginInput, logout, me, refresh, refreshInput, signup, signupInput, updateMe, updateMeInput } from './account.service';
import type { SessionView, UserView } from './account.view';

@ObjectType('User')
export class UserType implements UserView {
  @Field(() => ID) id!: string;
  @Field() email!: string;
  @Field(() => String, { nullable: true }) name!: string | null;
  @Field({ name: 'hasPassword' }) has_password!: boolean;
  @Field({ name: 'createdAt' }) created_at!: string;
  @Field({ name: 'updatedAt' }) updated_at!: string;
}

@ObjectType('Session')
export class SessionType implements SessionView {
  @Field({ name: 'accessToken' }) access_token!: string;
  @Field(() => String, { name: 'tokenType' }) token_type!: 'Bearer';
  @Field(() => Int, { name: 'expiresIn', description: 'Seconds until the access token expires.' }) expires_in!: number;
  @Field({ name: 'refreshToken', description: 'Shown once; exchange it with refreshToken.' }) refresh_token!: string;
  @Field(() => UserType) user!: UserType;
}

@InputType()
class SignupInput {
  @Field() email!: string;
  @Field() password!: string;
  @Field({ nullable: true }) name?: string;
  @Field({ nullable: true }) inviteToken?: string;
}

@InputType()
class UpdateMeInput {
  @Field(() => String, { nullable: true }) name?: string | null;
  @Field({ nullable: true }) password?: string;
  @Field({ nullable: true }) currentPassword?: string;
}

@Resolver()
export class AccountResolver {
  @Mutation(() => SessionType, { description: 'Create an account and start a session (with inviteToken: join the inviting organization).' })
  signup(@Arg('input') input: SignupInput, @Scoped({ scope: 'public' }) ctx: RequestContext): Promise<SessionType> {
    return signup(ctx, parseInput(signupInput, snakeKeys(input), 'input'));
  }

  @Mutation(() => SessionType)
  login(@Arg('email') email: string, @Arg('password') password: string, @Scoped({ scope: 'public' }) ctx: RequestContext): Promise<SessionType> {
    return login(ctx, parseInput(loginInput, { email, password }, 'arguments'));
  }

  @Mutation(() => SessionType, { description: 'Spends the refresh token and returns a new session; reusing a spent token revokes its family.' })
  refreshToken(@Arg('refreshToken') refreshToken: string, @Scoped({ scope: 'public' }) ctx: RequestContext): Promise<SessionType> {
    return refresh(ctx, parseInput(refreshInput, { refresh_token: refreshToken }, 'arguments'));
  }

  @Mutation(() => Boolean)
  async logout(@Arg('refreshToken') refreshToken: string, @Scoped({ scope: 'public' }) ctx: RequestContext): Promise<boolean> {
    await logout(ctx, parseInput(refreshInput, { refresh_token: refreshToken }, 'arguments'));
    return true;
  }

  @Query(() => UserType)
  me(@Scoped({ scope: 'user' }) ctx: UserContext): Promise<UserType> {
    return me(ctx);
  }

  @Mutation(() => UserType)
  updateMe(@Arg('input') input: UpdateMeInput, @Scoped({ scope: 'user' }) ctx: UserContext): Promise<UserType> {
    return updateMe(ctx, parseInput(updateMeInput, snakeKeys(input), 'input'));
  }
}
