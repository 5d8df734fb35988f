import type { ChangePasswordInput, LoginInput, RegisterInput, VerifyEmailInput } from './accounts';
import { body, text } from './validation';
import type { z } from 'zod';

// The request shapes of the account operations, checked at the edge (REST bodies; GraphQL checks
// its own argument types, and uses `verifyEmailInput` for the rule its types cannot express).

export const registerInput: z.ZodType<RegisterInput> = body({
  email: text(),
  displayName: text(),
  password: text(),
});

export const loginInput: z.ZodType<LoginInput> = body({ email: text(), password: text() });

export const profileInput: z.ZodType<{ displayName: string }> = body({ displayName: text() });

export const changePasswordInput: z.ZodType<ChangePasswordInput> = body({
  currentPassword: text(),
  newPassword: text(),
});

export const resendVerificationInput: z.ZodType<{ email: string }> = body({ email: text() });

/** Exactly one proof: the code (with an optional e-mail when there is no session) or the token. */
export const verifyEmailInput: z.ZodType<VerifyEmailInput> = body({
  code: text().nullish(),
  email: text().nullish(),
  token: text().nullish(),
})
  .superRefine((fields, context) => {
    const proofs = [fields.code, fields.token].filter((proof) => proof != null).length;
    if (proofs === 0) context.addIssue({ code: 'custom', message: 'code or token is required' });
    if (proofs === 2) context.addIssue({ code: 'custom', message: 'Send code or token, not both' });
  })
  .transform(({ code, email, token }): VerifyEmailInput =>
    token != null ? { token } : { code: code ?? '', email: email ?? undefined },
  );
