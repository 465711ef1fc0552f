import { describe, expect, it } from 'vitest';
import { RequestInvalidError } from '../../src/errors.ts';
import { ENDPOINT_NAMES, ENDPOINTS, type EndpointName } from '../../src/domain/endpoints.ts';
import { buildPath, encodeFragranceId, encodeSlug } from '../../src/api/paths.ts';

const NASTY = [
  'a',
  'chanel/no-5',
  'ab?x=1',
  'a#frag',
  'a%2F..%2Fb',
  '%2e%2e',
  'a b',
  'ünïcödé',
  'a;b',
  'a&b=c',
  '$&',
  '\'"<>',
  'a\\b',
  'a\u0000b',
  'x/..%2F',
  '....',
  '.a',
  '..a',
  'a.',
  'brand/%2e%2e',
  'brand/?',
  'brand/#',
  'emoji🧪/x',
  'line\nbreak',
];
const REFUSED_IDS = ['', '/', 'a/', '/a', 'a//b', 'a/b/c', '.', '..', 'a/..', '../a', './a', 'a/.', '\uD800'];

/** Each id segment may only become unreserved characters or %XX escapes. */
const SEGMENT = "(?:[A-Za-z0-9\\-_.!~*'()]|%[0-9A-F]{2})+";

/** The paths a template may produce: {id} one or two clean segments, {slug} exactly one. */
function shapeOf(endpoint: EndpointName): RegExp {
  const tpl = ENDPOINTS[endpoint].template.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  return new RegExp(`^${tpl.replace('{id}', `${SEGMENT}(?:/${SEGMENT})?`).replace('{slug}', SEGMENT)}$`);
}

/** What a router that prefers literal segments would make of a path: exactly one endpoint. */
function resolve(path: string): EndpointName[] {
  const matching = ENDPOINT_NAMES.filter((n) => shapeOf(n).test(path));
  const literals = (n: EndpointName) =>
    ENDPOINTS[n].template.split('/').filter((x) => x && !x.startsWith('{')).length;
  const best = Math.max(...matching.map(literals));
  return matching.filter((n) => literals(n) === best);
}

function decodeSegments(path: string, template: string): string {
  const prefix = template.slice(0, template.indexOf('{'));
  const suffix = template.slice(template.indexOf('}') + 1);
  const middle = path.slice(prefix.length, path.length - suffix.length);
  return middle.split('/').map(decodeURIComponent).join('/');
}

describe('fragrance ids in paths', () => {
  const idEndpoints: EndpointName[] = [
    'getFragrance',
    'getReviews',
    'getSimilar',
    'getWearingStats',
    'getReviewDigest',
  ];

  it('keeps every accepted id inside its template and round-trips it', () => {
    for (const endpoint of idEndpoints) {
      for (const id of NASTY) {
        const path = buildPath(endpoint, { id });
        expect(path, id).toMatch(shapeOf(endpoint));
        expect(resolve(path), id).toEqual([endpoint]);
        expect(path).not.toMatch(/[?#]/);
        expect(decodeSegments(path, ENDPOINTS[endpoint].template)).toBe(id);
        // No segment the server would normalise away.
        for (const seg of path.split('/')) expect(['.', '..']).not.toContain(decodeURIComponent(seg));
      }
    }
  });

  it('encodes a two-segment slug as two segments', () => {
    expect(buildPath('getFragrance', { id: 'maison margiela/by the fireplace' })).toBe(
      '/v1/fragrances/maison%20margiela/by%20the%20fireplace',
    );
    expect(buildPath('getSimilar', { id: 'a?b/c#d' })).toBe('/v1/fragrances/a%3Fb/c%23d/similar');
    expect(encodeFragranceId('getFragrance', '100%')).toBe('100%25');
  });

  it('refuses ids that could change the path', () => {
    for (const id of REFUSED_IDS) {
      expect(() => buildPath('getFragrance', { id }), JSON.stringify(id)).toThrow(RequestInvalidError);
    }
  });

  it('refuses ids that would turn the path into another endpoint', () => {
    for (const id of [
      'compare',
      'batch',
      'enrich',
      'x/reviews',
      'x/similar',
      'x/wearing-stats',
      'x/review-digest',
    ]) {
      expect(() => buildPath('getFragrance', { id }), id).toThrow(/would address/);
    }
    // The same words are harmless where the template already ends in a literal.
    expect(resolve(buildPath('getReviews', { id: 'x/reviews' }))).toEqual(['getReviews']);
    expect(resolve(buildPath('getSimilar', { id: 'compare' }))).toEqual(['getSimilar']);
    expect(resolve(buildPath('getFragrance', { id: 'reviews' }))).toEqual(['getFragrance']);
  });

  it('refuses a plain value exactly when a router would take its path for another endpoint', () => {
    // Every template's literal words, alone and as either half of a two-segment value: the
    // values the fast path (plain, no literal segment) hands to the full check.
    const words = [
      ...new Set(ENDPOINT_NAMES.flatMap((n) => ENDPOINTS[n].template.split('/'))),
      'plain',
      'x-1',
    ].filter((w) => w !== '' && !w.startsWith('{'));
    const values = [...words, ...words.flatMap((a) => words.map((b) => `${a}/${b}`))];
    for (const endpoint of ENDPOINT_NAMES.filter((n) => ENDPOINTS[n].template.includes('{'))) {
      const param = ENDPOINTS[endpoint].template.includes('{id}') ? 'id' : 'slug';
      for (const value of values) {
        if (param === 'slug' && value.includes('/')) continue;
        const path = ENDPOINTS[endpoint].template.replace(`{${param}}`, value);
        const ambiguous = resolve(path).join() !== endpoint;
        if (ambiguous)
          expect(() => buildPath(endpoint, { [param]: value }), `${endpoint} ${value}`).toThrow(
            /would address/,
          );
        else expect(buildPath(endpoint, { [param]: value }), `${endpoint} ${value}`).toBe(path);
      }
    }
  });

  it('fuzzes random strings: accepted ones always fit the template', () => {
    const alphabet = [
      '/',
      '.',
      '%',
      '?',
      '#',
      'a',
      'Z',
      '0',
      ' ',
      '\\',
      '&',
      '=',
      '+',
      'é',
      '\u2028',
      'reviews',
      'compare',
    ];
    let seed = 42;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let accepted = 0;
    const endpoints: EndpointName[] = [
      'getFragrance',
      'getReviews',
      'getWearingStats',
      'getBrand',
      'getNote',
    ];
    for (let n = 0; n < 3000; n++) {
      const endpoint = endpoints[n % endpoints.length] as EndpointName;
      const param = ENDPOINTS[endpoint].template.includes('{id}') ? 'id' : 'slug';
      const len = 1 + Math.floor(rand() * 6);
      let value = '';
      for (let i = 0; i < len; i++) value += alphabet[Math.floor(rand() * alphabet.length)];
      let path: string;
      try {
        path = buildPath(endpoint, { [param]: value });
      } catch (err) {
        expect(err).toBeInstanceOf(RequestInvalidError);
        continue;
      }
      accepted++;
      expect(path).toMatch(shapeOf(endpoint));
      expect(resolve(path)).toEqual([endpoint]);
      expect(decodeSegments(path, ENDPOINTS[endpoint].template)).toBe(value);
    }
    expect(accepted).toBeGreaterThan(500);
  });
});

describe('slugs in paths', () => {
  const slugEndpoints: EndpointName[] = [
    'getChart',
    'getBrand',
    'getBrandFragrances',
    'getPerfumer',
    'getNote',
  ];

  it('encodes a slug as exactly one segment', () => {
    for (const endpoint of slugEndpoints) {
      for (const slug of NASTY.filter((s) => !s.includes('/'))) {
        const path = buildPath(endpoint, { slug });
        expect(path).toMatch(shapeOf(endpoint));
        expect(resolve(path)).toEqual([endpoint]);
        expect(decodeSegments(path, ENDPOINTS[endpoint].template)).toBe(slug);
      }
    }
  });

  it("refuses '/', empty, '.' and '..' slugs", () => {
    for (const slug of ['', 'a/b', '/', '.', '..', '\uDFFF']) {
      expect(() => encodeSlug('getBrand', slug)).toThrow(RequestInvalidError);
    }
  });

  it('refuses a template value that is missing', () => {
    expect(() => buildPath('getBrand')).toThrow(/slug is required/);
    expect(() => buildPath('getFragrance')).toThrow(/id is required/);
    expect(buildPath('trending')).toBe('/v1/trending');
  });
});
