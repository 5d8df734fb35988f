import { z } from 'zod';
import type { ChangePasswordInput, LoginInput, RegisterInput, VerifyEmailInput } from './accounts';
import {
  defaultAdvertisementPosition,
  type AdvertisementChangesInput,
  type NewAdvertisementInput,
} from './ads';
import type { OfflineChoiceView, TournamentInput } from './tournaments';
import {
  body,
  optionalFlag,
  optionalInstant,
  optionalText,
  optionalWholeNumber,
  text,
  wholeNumber,
} from './validation';

// The request shapes, checked at the edge (REST bodies; GraphQL checks its own argument types,
// and uses these for what its types cannot express: one of code or token, ISO instants, ranges
// protobuf can carry).

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

// Tournaments, offline choices and advertisements: only the shapes are checked here. Missing or
// empty required texts go through empty, so the service answers with the spec's message
// ("Title is required", "Start time is required"); ranges and the offline rules are the
// services' too.

/** Create and edit. The edit form's extra `originalStartAt` is ignored: the service compares. */
export const tournamentInput: z.ZodType<TournamentInput> = body({
  title: optionalText().transform((value) => value ?? ''),
  description: optionalText(),
  prize: optionalText(),
  startAt: optionalInstant(),
  roundTimeSeconds: optionalWholeNumber(),
});

export const offlineChoicesInput: z.ZodType<{ choices: OfflineChoiceView[] }> = body({
  choices: z.array(
    z.object(
      { roundNumber: wholeNumber(), selectedImageId: text() },
      { error: 'must be an object' },
    ),
    { error: (issue) => (issue.input === undefined ? 'is required' : 'must be an array') },
  ),
});

const advertisementFields = {
  displayPosition: optionalText(),
  duration: optionalWholeNumber(),
  isActive: optionalFlag(),
};

export const newAdvertisementInput: z.ZodType<NewAdvertisementInput> = body({
  title: optionalText().transform((value) => value ?? ''),
  type: optionalText().transform((value) => value ?? ''),
  content: optionalText().transform((value) => value ?? ''),
  ...advertisementFields,
});

export const advertisementChangesInput: z.ZodType<AdvertisementChangesInput> = body({
  title: optionalText(),
  type: optionalText(),
  content: optionalText(),
  ...advertisementFields,
});

/** `?position=`: one value; absent means between rounds, the only position the spec asks for. */
export const advertisementPositionQuery: z.ZodType<{ position: string }> = z.object({
  position: text()
    .optional()
    .transform((value) => value ?? defaultAdvertisementPosition),
});
