import type { LoginInput, RegisterInput } from '../../accounts';
import { verifyEmailInput } from '../../inputs';
import { parseBody } from '../../validation';
import type { Resolvers } from '../context';

export const accountsResolvers: Resolvers = {
  Query: {
    me: (_parent, _args, { accounts, origin }) => accounts.me(origin),
  },
  Mutation: {
    register: (_parent, { input }: { input: RegisterInput }, { accounts, origin }) =>
      accounts.register(origin, input),
    login: (_parent, args: LoginInput, { accounts, origin }) => accounts.login(origin, args),
    logout: (_parent, _args, { accounts, origin }) => accounts.logout(origin).then(() => true),
    verifyEmail: (_parent, args: unknown, { accounts, origin }) =>
      accounts.verifyEmail(origin, parseBody(verifyEmailInput, args)),
    resendVerification: (_parent, args: { email: string }, { accounts, origin }) =>
      accounts.resendVerification(origin, args),
    updateProfile: (_parent, args: { displayName: string }, { accounts, origin }) =>
      accounts.updateProfile(origin, args),
    changePassword: (
      _parent,
      args: { currentPassword: string; newPassword: string },
      { accounts, origin },
    ) => accounts.changePassword(origin, args),
  },
};
