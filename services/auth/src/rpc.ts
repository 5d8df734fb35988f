import { commonErrors, parseInput } from '@underdog/kit';
import { AuthService } from '@underdog/proto';
import type { RegisterRoutes } from '@underdog/rpc';
import type { Accounts } from './accounts';
import { authErrors } from './domain/errors';
import {
  benchmarkSeedInput,
  changePasswordInput,
  emailInput,
  loginInput,
  profileInput,
  registerInput,
  verificationCode,
} from './domain/validation';
import { roleFromMessage, toSessionMessage, toUserMessage } from './mapping';

export const authMessages = {
  registered: 'Account created! Check your e-mail for the verification code.',
  /** The same whether or not an e-mail went out (unknown or verified address). */
  resent: 'A new verification email has been sent.',
} as const;

/** Device ids come from the client (`X-Device-ID`); only a bounded prefix is kept. */
const MAX_DEVICE_ID = 128;
const deviceIdOf = (value: string) => value.slice(0, MAX_DEVICE_ID);

/** The Connect handlers: validate and normalise the request, delegate, map the answer. */
export function authRoutes(
  accounts: Accounts,
  options: { benchmarkSeed: boolean } = { benchmarkSeed: false },
): RegisterRoutes {
  return (router) =>
    router.service(AuthService, {
      register: async (request) => {
        const input = parseInput(registerInput, request);
        const { user, session } = await accounts.register({
          ...input,
          deviceId: deviceIdOf(request.deviceId),
        });
        return {
          user: toUserMessage(user),
          session: toSessionMessage(session),
          message: authMessages.registered,
        };
      },

      login: async (request) => {
        const { email, password } = parseInput(loginInput, request);
        const { user, session } = await accounts.login(
          email,
          password,
          deviceIdOf(request.deviceId),
        );
        return { user: toUserMessage(user), session: toSessionMessage(session) };
      },

      logout: async (request) => {
        await accounts.logout(request.sessionId);
        return {};
      },

      getSession: async (request) => {
        const { user, session } = await accounts.resolveSession(request.sessionId);
        return { user: toUserMessage(user), session: toSessionMessage(session) };
      },

      getSessionActor: async (request) => {
        const { userId, claims, session } = await accounts.resolveActor(request.sessionId);
        return {
          actor: {
            userId,
            username: claims.username,
            role: claims.role,
            isEmailVerified: claims.isEmailVerified,
          },
          session: toSessionMessage(session),
        };
      },

      verifyEmail: async (request) => {
        const sessionId = request.sessionId || undefined;
        const { proof } = request;
        switch (proof.case) {
          case 'code': {
            const code = parseInput(verificationCode, proof.value);
            const email = request.email ? parseInput(emailInput, request).email : undefined;
            const user = await accounts.verifyWithCode(code, { sessionId, email });
            // Set only for the caller's own session: an e-mail names an account, not a caller.
            return user ? { user: toUserMessage(user) } : {};
          }
          case 'token': {
            const user = await accounts.verifyWithToken(proof.value, sessionId);
            return { user: toUserMessage(user) };
          }
          case undefined:
            // No proof at all reads, to a person, as an empty code field.
            throw commonErrors.invalid('Verification code must be 6 digits');
        }
      },

      resendVerification: async (request) => {
        const { email } = parseInput(emailInput, request);
        await accounts.resendVerification(email);
        return { message: authMessages.resent };
      },

      updateProfile: async (request) => {
        const { displayName } = parseInput(profileInput, request);
        const user = await accounts.updateProfile(request.sessionId, displayName);
        return { user: toUserMessage(user) };
      },

      changePassword: async (request) => {
        const { currentPassword, newPassword } = parseInput(changePasswordInput, request);
        const session = await accounts.changePassword(
          request.sessionId,
          currentPassword,
          newPassword,
        );
        return { session: toSessionMessage(session) };
      },

      setRole: async (request) => {
        const { email } = parseInput(emailInput, request);
        const role = roleFromMessage(request.role);
        if (!role) throw authErrors.invalidRole();
        const user = await accounts.setRole(email, role);
        return { user: toUserMessage(user) };
      },

      seedBenchmarkUsers: async (request) => {
        if (!options.benchmarkSeed) throw authErrors.benchmarkSeedOff();
        const { count, label } = parseInput(benchmarkSeedInput, request);
        const seeded = await accounts.seedBenchmarkUsers(count, label);
        return {
          users: seeded.map(({ user, session }) => ({
            userId: user.id,
            username: user.username,
            sessionId: session.id,
            deviceId: session.deviceId,
          })),
        };
      },
    });
}
