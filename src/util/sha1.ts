import * as crypto from 'node:crypto';

/**
 * SHA-1 of a string, as lowercase hex. crypto.hash (Node 20.12+) digests in one call; a Hash
 * object per digest showed in profiles (job ids, call keys). Same digest either way; the
 * fallback keeps Node 20.10 and 20.11 working.
 */
export const sha1Hex: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha1', text, 'hex')
    : (text) => crypto.createHash('sha1').update(text).digest('hex');
