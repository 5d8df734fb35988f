import { createHash, randomBytes, randomInt } from 'node:crypto';
import { argon2id, hash, verify } from 'argon2';

/**
 * argon2id at OWASP's minimum (19 MiB, 2 passes, 1 lane): the server rules' floor, and about
 * 60 ms per hash on a small node. Raise them here; old hashes keep verifying with their own
 * parameters, which the hash string carries.
 */
export const argon2Parameters = {
  type: argon2id,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

/** Hashes a low-entropy secret (a password, a 6-digit code). */
export function hashSecret(secret: string): Promise<string> {
  return hash(secret, argon2Parameters);
}

/** False for a wrong secret and for a hash that cannot be read: both simply do not match. */
export async function verifySecret(digest: string, secret: string): Promise<boolean> {
  try {
    return await verify(digest, secret);
  } catch {
    return false;
  }
}

/** A random, URL-safe secret of 256 bits: session ids and link tokens. */
export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Six digits from the CSPRNG, leading zeros kept. */
export function randomVerificationCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/** For high-entropy secrets stored or looked up by value (session ids, link tokens). */
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
