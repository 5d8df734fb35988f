/** What a template produces: everything of an e-mail but its recipient. */
export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

export interface VerificationEmailContent {
  /** As the user typed it at registration: untrusted text. */
  displayName: string;
  /** The 6-digit code. */
  code: string;
  /** The absolute verification link, `${PUBLIC_URL}/verify-email/${token}`. */
  link: string;
  /** Whole minutes until the code and link expire; omitted when the request did not say. */
  validForMinutes?: number | undefined;
}

export const verificationSubject = 'Verify your e-mail for Underdog';

/** The link that verifies without the code. The token is URL-encoded, whatever auth puts in it. */
export function verificationLink(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/verify-email/${encodeURIComponent(token)}`;
}

export function renderVerificationEmail(content: VerificationEmailContent): RenderedEmail {
  const name = oneLine(content.displayName);
  const greeting = name === '' ? 'Hi,' : `Hi ${name},`;
  const expiry =
    content.validForMinutes === undefined
      ? ''
      : `The code and the link expire in ${minutes(content.validForMinutes)}.`;
  const ignore = 'If you did not sign up for Underdog, you can ignore this e-mail.';

  const text = [
    greeting,
    '',
    'Your Underdog verification code is:',
    '',
    `    ${content.code}`,
    '',
    'Or verify your e-mail address by opening this link:',
    content.link,
    '',
    ...(expiry === '' ? [] : [expiry]),
    ignore,
    '',
  ].join('\n');

  const link = escapeHtml(content.link);
  const html = [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><title>' + escapeHtml(verificationSubject) + '</title></head>',
    '<body style="font-family: Arial, Helvetica, sans-serif; color: #222; line-height: 1.5;">',
    `<p>${escapeHtml(greeting)}</p>`,
    '<p>Your Underdog verification code is:</p>',
    '<p style="font-size: 28px; font-weight: bold; letter-spacing: 6px;">' +
      escapeHtml(content.code) +
      '</p>',
    `<p>Or verify your e-mail address by opening this link:<br><a href="${link}">${link}</a></p>`,
    ...(expiry === '' ? [] : [`<p>${escapeHtml(expiry)}</p>`]),
    `<p style="color: #666;">${escapeHtml(ignore)}</p>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');

  return { subject: verificationSubject, text, html };
}

const htmlEntities: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Safe in element content and in quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => htmlEntities[character] ?? character);
}

/** A name with line breaks or control characters could forge lines of the plain-text body. */
function oneLine(value: string): string {
  return value
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function minutes(count: number): string {
  return count === 1 ? '1 minute' : `${count} minutes`;
}
