import type { LoginInput, RegisterInput } from '../../accounts';
import { verifyEmailInput } from '../../inputs';
import { parseBody } from '../../validation';
import type { Resolvers } from '../context';

export const accountsResolvers: Resolvers = {
  Query: {
    me: (_parent, _args, { accounts, caller }) => accounts.me(caller),
  },
  Mutation: {
    register: (_parent, { input }: { input: RegisterInput }, { accounts, caller }) =>
      accounts.register(caller, input),
    login: (_parent, args: LoginInput, { accounts, caller }) => accounts.login(caller, args),
    logout: (_parent, _args, { accounts, caller }) => accounts.logout(caller).then(() => true),
    verifyEmail: (_parent, args: unknown, { accounts, caller }) =>
      accounts.verifyEmail(caller, parseBody(verifyEmailInput, args)),
    resendVerification: (_parent, args: { email: string }, { accounts, caller }) =>
      accounts.resendVerification(caller, args),
    updateProfile: (_parent, args: { displayName: string }, { accounts, caller }) =>
      accounts.updateProfile(caller, args),
    changePassword: (
      _parent,
      args: { currentPassword: string; newPassword: string },
      { accounts, caller },
    ) => accounts.changePassword(caller, args),
  },
};
