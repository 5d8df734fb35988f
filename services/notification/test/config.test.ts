import { ConfigError } from '@underdog/kit';
import { notificationConfig } from '../src/config';

function problemsOf(env: Record<string, string>): string[] {
  try {
    notificationConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('the notification config', () => {
  it('runs without SMTP in development (in-memory outbox) with the documented defaults', () => {
    expect(notificationConfig({})).toEqual({
      smtpUrl: undefined,
      mailFrom: 'Underdog <no-reply@underdog.local>',
      publicUrl: 'http://localhost:8080',
      publicUrlConfigured: false,
    });
  });

  it('reads SMTP_URL, MAIL_FROM and PUBLIC_URL, without the trailing slash of the URL', () => {
    expect(
      notificationConfig({
        SMTP_URL: 'smtp://mail.internal:1025',
        MAIL_FROM: 'Games <games@example.com>',
        PUBLIC_URL: 'https://play.example.com/',
      }),
    ).toEqual({
      smtpUrl: 'smtp://mail.internal:1025',
      mailFrom: 'Games <games@example.com>',
      publicUrl: 'https://play.example.com',
      publicUrlConfigured: true,
    });
  });

  it('requires SMTP_URL in production, saying why', () => {
    expect(problemsOf({ NODE_ENV: 'production' })).toEqual([
      expect.stringMatching(/^SMTP_URL: required when NODE_ENV=production.*never reach anyone/),
    ]);
    expect(
      notificationConfig({ NODE_ENV: 'production', SMTP_URL: 'smtps://mail.example.com' }).smtpUrl,
    ).toBe('smtps://mail.example.com');
  });

  it('lists every malformed variable at once', () => {
    const problems = problemsOf({
      SMTP_URL: 'http://mail.example.com',
      MAIL_FROM: 'nobody',
      PUBLIC_URL: 'not a url',
    });
    expect(problems).toEqual([
      expect.stringContaining('SMTP_URL: must be an smtp:// or smtps:// URL'),
      expect.stringContaining('MAIL_FROM: must contain an e-mail address'),
      expect.stringContaining('PUBLIC_URL: must be an http:// or https:// URL'),
    ]);
  });
});
