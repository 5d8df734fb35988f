import { z } from 'zod';
import {
  displayNameMessages,
  hasInvisibleCharacters,
  imitatesStaff,
  normaliseDisplayName,
} from './display-name';

/**
 * Input rules with the product's exact messages (spec §5). Handlers parse requests with these,
 * so the rest of the service works with values that are already valid and normalised.
 */
export const passwordLength = { min: 8, max: 128 } as const;

const hasLetterAndDigit = (value: string) => /\p{L}/u.test(value) && /\d/.test(value);

const email = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(
    z.email('Please enter a valid email address').max(254, 'Please enter a valid email address'),
  );

/**
 * Normalised (NFC, white space collapsed) before its length is counted; invisible and control
 * characters are refused (`display-name.ts`). Names that pass for the staff are refused at
 * registration (`registerInput`) and on a profile update by a non-admin (the use case: it knows
 * the role).
 */
const displayName = z
  .string()
  .transform((raw, context) => {
    if (!hasInvisibleCharacters(raw.normalize('NFC'))) return normaliseDisplayName(raw);
    context.addIssue({ code: 'custom', message: displayNameMessages.invisible });
    return z.NEVER;
  })
  .pipe(
    z
      .string()
      .min(2, 'Display name must be at least 2 characters')
      .max(50, 'Display name must be at most 50 characters'),
  );

/** A password being chosen; `label` is "Password" or "New password" as the form calls it. */
const newPassword = (label: string) =>
  z
    .string()
    .min(passwordLength.min, `${label} must be at least ${passwordLength.min} characters`)
    .max(passwordLength.max, `${label} must be at most ${passwordLength.max} characters`)
    .refine(hasLetterAndDigit, `${label} must contain at least one letter and one number`);

export const verificationCode = z
  .string()
  .length(6, 'Verification code must be 6 digits')
  .regex(/^\d+$/, 'Verification code must contain only numbers');

export const registerInput = z.object({
  email,
  displayName: displayName.refine((name) => !imitatesStaff(name), displayNameMessages.reserved),
  password: newPassword('Password'),
});

export const loginInput = z.object({
  email,
  password: z.string().min(1, 'Password is required'),
});

export const emailInput = z.object({ email });

export const profileInput = z.object({ displayName });

export const changePasswordInput = z.object({
  currentPassword: z.string().min(1, 'Current password is required'),
  newPassword: newPassword('New password'),
});

/** A chosen password (e.g. `ADMIN_PASSWORD`) checked against the same rules as at register. */
export const passwordRule = newPassword('Password');

/** The benchmark's seeding request (load/README.md): at most 5000 users a call. */
export const benchmarkSeedInput = z.object({
  count: z.number().int().min(1).max(5000),
  label: z
    .string()
    .regex(/^[a-z0-9]{1,8}$/, 'The label must be 1 to 8 lower-case letters or digits'),
});
