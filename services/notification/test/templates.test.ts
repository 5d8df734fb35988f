import { escapeHtml, renderVerificationEmail, verificationLink } from '../src/templates';

const content = {
  displayName: 'Ada',
  code: '042917',
  link: 'https://underdog.example/verify-email/abc123',
  validForMinutes: 10,
};

describe('the verification e-mail', () => {
  it('has the subject players look for', () => {
    expect(renderVerificationEmail(content).subject).toBe('Verify your e-mail for Underdog');
  });

  it('carries the code and the link in both the text and the HTML', () => {
    const { text, html } = renderVerificationEmail(content);
    for (const body of [text, html]) {
      expect(body).toContain('042917');
      expect(body).toContain('https://underdog.example/verify-email/abc123');
    }
    expect(html).toContain('<a href="https://underdog.example/verify-email/abc123">');
  });

  it('greets the player by name and says when the code expires', () => {
    const { text, html } = renderVerificationEmail(content);
    expect(text.startsWith('Hi Ada,\n')).toBe(true);
    expect(text).toContain('expire in 10 minutes');
    expect(html).toContain('expire in 10 minutes');
    expect(renderVerificationEmail({ ...content, validForMinutes: 1 }).text).toContain(
      'expire in 1 minute.',
    );
  });

  it('leaves out the expiry when the request does not give one', () => {
    const { text } = renderVerificationEmail({ ...content, validForMinutes: undefined });
    expect(text).not.toContain('expire');
  });

  it('escapes the display name in the HTML', () => {
    const { html } = renderVerificationEmail({
      ...content,
      displayName: `<script>alert("pwned")</script> & 'friends'`,
    });
    expect(html).not.toContain('<script>');
    expect(html).toContain(
      'Hi &lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt; &amp; &#39;friends&#39;,',
    );
  });

  it('keeps a display name with line breaks on the greeting line of the text', () => {
    const { text } = renderVerificationEmail({
      ...content,
      displayName: 'Ada\n\nYour code is 000000\r\n',
    });
    expect(text.split('\n')[0]).toBe('Hi Ada Your code is 000000,');
    expect(text.split('\n')[1]).toBe('');
  });

  it('greets without a name when there is none', () => {
    expect(renderVerificationEmail({ ...content, displayName: '  ' }).text).toMatch(/^Hi,\n/);
  });
});

describe('verificationLink', () => {
  it('joins the public URL and the URL-encoded token', () => {
    expect(verificationLink('https://underdog.example/', 'a/b?c')).toBe(
      'https://underdog.example/verify-email/a%2Fb%3Fc',
    );
  });
});

describe('escapeHtml', () => {
  it('escapes every character that is special in content or quoted attributes', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });
});
