import type { Rule } from 'antd/es/form';

/** Spec §5's rules and messages, shared by the auth, profile and verification forms. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const messages = {
  email: 'Please enter a valid email address',
  displayNameShort: 'Display name must be at least 2 characters',
  displayNameLong: 'Display name must be at most 50 characters',
  passwordShort: 'Password must be at least 8 characters',
  passwordMix: 'Password must contain at least one letter and one number',
  passwordRequired: 'Password is required',
  currentPasswordRequired: 'Current password is required',
  newPasswordShort: 'New password must be at least 8 characters',
  newPasswordMix: 'New password must contain at least one letter and one number',
  confirmRequired: 'Please confirm your new password',
  mismatch: "Passwords don't match",
  codeLength: 'Verification code must be 6 digits',
  codeDigits: 'Verification code must contain only numbers',
} as const;

export function emailError(value: string): string | undefined {
  return EMAIL.test(value.trim()) ? undefined : messages.email;
}

export function displayNameError(value: string): string | undefined {
  const length = value.trim().length;
  if (length < 2) return messages.displayNameShort;
  if (length > 50) return messages.displayNameLong;
  return undefined;
}

export function newPasswordError(value: string, prefix: '' | 'New ' = ''): string | undefined {
  if (value.length < 8) return prefix ? messages.newPasswordShort : messages.passwordShort;
  if (!/[A-Za-z]/.test(value) || !/[0-9]/.test(value)) {
    return prefix ? messages.newPasswordMix : messages.passwordMix;
  }
  return undefined;
}

export function codeError(value: string): string | undefined {
  if (!/^[0-9]*$/.test(value)) return messages.codeDigits;
  if (value.length !== 6) return messages.codeLength;
  return undefined;
}

/** An antd form rule from a check that answers with a message or nothing. */
export function ruleOf(check: (value: string) => string | undefined): Rule {
  return {
    validator: async (_rule, value: unknown) => {
      const error = check(typeof value === 'string' ? value : '');
      if (error) throw new Error(error);
    },
  };
}

export const requiredRule = (message: string): Rule => ({ required: true, message });
