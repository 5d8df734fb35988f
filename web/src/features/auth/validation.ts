import type { Rule } from 'antd/es/form';
import { i18n } from '../../app/i18n';

/** Spec §5's rules and messages, shared by the auth, profile and verification forms. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const MESSAGE_KEYS = [
  'email',
  'displayNameShort',
  'displayNameLong',
  'passwordShort',
  'passwordMix',
  'passwordRequired',
  'currentPasswordRequired',
  'newPasswordShort',
  'newPasswordMix',
  'confirmRequired',
  'mismatch',
  'codeLength',
  'codeDigits',
] as const;

type MessageKey = (typeof MESSAGE_KEYS)[number];

/** Spec §5's messages, in the user's language (read when shown, so a switch applies at once). */
export const messages = Object.defineProperties(
  {} as Record<MessageKey, string>,
  Object.fromEntries(
    MESSAGE_KEYS.map((key) => [key, { get: () => i18n.t(`validation.${key}`), enumerable: true }]),
  ),
);

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
