/**
 * @jest-environment jsdom
 */
import { fireEvent, screen } from '@testing-library/react';
import { AuthPage } from '../../src/features/auth/components/AuthPage';
import { codeError, messages, newPasswordError } from '../../src/features/auth/validation';
import { renderWith } from './render';

// antd validates asynchronously, and jsdom renders antd slowly on a busy machine.
const find = (text: string) => screen.findByText(text, {}, { timeout: 10_000 });

function type(label: string, value: string) {
  fireEvent.change(screen.getByLabelText(label), { target: { value } });
}

describe('form validation messages (spec §5)', () => {
  it('register: a bad e-mail, a short display name and a weak password', async () => {
    renderWith(<AuthPage />, { path: '/auth?tab=register' });
    type('Email', 'not-an-email');
    type('Display name', 'A');
    type('Password', 'abcdefgh');
    fireEvent.click(screen.getByRole('button', { name: 'Create Account' }));
    expect(await find('Please enter a valid email address')).toBeTruthy();
    expect(await find('Display name must be at least 2 characters')).toBeTruthy();
    expect(await find('Password must contain at least one letter and one number')).toBeTruthy();
  });

  it('register: a display name over 50 characters and a password under 8', async () => {
    renderWith(<AuthPage />, { path: '/auth?tab=register' });
    type('Display name', 'x'.repeat(51));
    type('Password', 'a1');
    fireEvent.click(screen.getByRole('button', { name: 'Create Account' }));
    expect(await find('Display name must be at most 50 characters')).toBeTruthy();
    expect(await find('Password must be at least 8 characters')).toBeTruthy();
  });

  it('login: the password is required', async () => {
    renderWith(<AuthPage />, { path: '/auth' });
    type('Email', 'ann@example.com');
    fireEvent.click(screen.getByRole('button', { name: 'Login' }));
    expect(await find('Password is required')).toBeTruthy();
  });

  it('verification codes: exactly 6 digits, digits only', () => {
    expect(codeError('12345')).toBe('Verification code must be 6 digits');
    expect(codeError('12a456')).toBe('Verification code must contain only numbers');
    expect(codeError('123456')).toBeUndefined();
  });

  it('change password: the "New" messages', () => {
    expect(newPasswordError('short1', 'New ')).toBe(messages.newPasswordShort);
    expect(newPasswordError('longenough', 'New ')).toBe(
      'New password must contain at least one letter and one number',
    );
  });
});
