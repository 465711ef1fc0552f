import { RequestInvalidError } from '../errors.ts';
import { ENDPOINT_NAMES, ENDPOINTS, type EndpointName } from '../domain/endpoints.ts';

/**
 * Identifiers are data, never path syntax. Every segment goes through encodeURIComponent,
 * so '?', '#', '%' and '/' inside a segment cannot change which resource is addressed;
 * the only '/' we let through is the one separating a two-segment fragrance slug.
 */

function encodeSegment(endpoint: EndpointName, what: string, segment: string, whole: string): string {
  if (segment === '') throw invalid(endpoint, `${what} has an empty segment`, whole);
  if (segment === '.' || segment === '..')
    throw invalid(endpoint, `${what} segment may not be '.' or '..'`, whole);
  try {
    return encodeURIComponent(segment);
  } catch {
    // encodeURIComponent throws URIError on lone surrogates: no server could match them anyway.
    throw invalid(endpoint, `${what} is not well-formed Unicode`, whole);
  }
}

function invalid(endpoint: EndpointName, message: string, value: string): RequestInvalidError {
  return new RequestInvalidError(ENDPOINTS[endpoint].template, message, {
    endpointName: endpoint,
    value: value.slice(0, 200),
  });
}

/** A fragrance id: opaque, or a two-segment slug `brand/fragrance`. */
export function encodeFragranceId(endpoint: EndpointName, id: string): string {
  if (typeof id !== 'string' || id === '')
    throw invalid(endpoint, 'id must be a non-empty string', String(id));
  const segments = id.split('/');
  if (segments.length > 2) throw invalid(endpoint, 'id may have at most two segments', id);
  return segments.map((s) => encodeSegment(endpoint, 'id', s, id)).join('/');
}

/** A brand, perfumer, note or chart slug: always one segment. */
export function encodeSlug(endpoint: EndpointName, slug: string): string {
  if (typeof slug !== 'string' || slug === '')
    throw invalid(endpoint, 'slug must be a non-empty string', String(slug));
  if (slug.includes('/')) throw invalid(endpoint, "slug may not contain '/'", slug);
  return encodeSegment(endpoint, 'slug', slug, slug);
}

/**
 * Whether `value` can be put in a path at all: a fragrance id of one or two non-empty
 * segments, a slug of one, no segment '.' or '..'. The spec lets the service send an empty
 * perfumer slug (an unknown perfumer); such a value is stored as sent but never followed.
 * (Ids a router would read as another endpoint, such as 'compare', are refused when asked.)
 */
// Outside isAddressable: tsx names every function made inside another (esbuild's keepNames,
// a defineProperty per closure), and every id of every similar list passes there.
const segment = (s: string) => s !== '' && s !== '.' && s !== '..';

export function isAddressable(kind: 'id' | 'slug', value: string): boolean {
  // Without split or a regular expression: every id of every similar list passes here.
  const slash = value.indexOf('/');
  if (slash < 0) return segment(value);
  if (kind === 'slug' || value.indexOf('/', slash + 1) >= 0) return false;
  return segment(value.slice(0, slash)) && segment(value.slice(slash + 1));
}

/** The paths a template can produce: {id} is one or two segments, {slug} exactly one. */
function shapeOf(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace('{id}', '[^/]+(?:/[^/]+)?').replace('{slug}', '[^/]+')}$`);
}

const SHAPES = ENDPOINT_NAMES.map((name) => ({
  name,
  shape: shapeOf(ENDPOINTS[name].template),
  // Literal segments: a router prefers the template with more of them (`/v1/fragrances/compare`
  // over `/v1/fragrances/{id}`, `/v1/fragrances/{id}/reviews` over a two-segment `{id}`).
  literals: ENDPOINTS[name].template.split('/').filter((s) => s !== '' && !s.startsWith('{')).length,
}));

/** Per endpoint, the templates a router would prefer if a path matched them (computed once: every call asks). */
const RIVALS = new Map(
  SHAPES.map((own) => [own.name, SHAPES.filter((s) => s.name !== own.name && s.literals >= own.literals)]),
);

/**
 * The spec's templates overlap: a fragrance id 'compare' or 'brand/reviews' would turn
 * GET /v1/fragrances/{id} into another endpoint. Such an id is refused rather than sent.
 */
function assertUnambiguous(endpoint: EndpointName, path: string, value: string): void {
  const rival = RIVALS.get(endpoint)!.find((s) => s.shape.test(path));
  if (rival)
    throw invalid(endpoint, `'${value}' would address ${ENDPOINTS[rival.name].template} instead`, value);
}

/** Every literal segment of every template (`v1`, `fragrances`, `reviews`, …). */
const LITERALS = new Set(SHAPES.flatMap(({ name }) => literalSegments(name)));

function literalSegments(name: EndpointName): string[] {
  return ENDPOINTS[name].template.split('/').filter((s) => s !== '' && !s.startsWith('{'));
}

/**
 * Endpoints whose filled path no rival can match while no segment of the value is a literal
 * of some template. A rival's literals must then fall on this template's literals, so it
 * would need the same literals in the same order, and a parameter for the value: none has
 * (computed from the table, so a new template cannot make this wrong).
 */
const CLEAR_UNLESS_LITERAL = new Set(
  SHAPES.filter(({ name }) => {
    const own = literalSegments(name).join('/');
    return !RIVALS.get(name)!.some(
      (r) => literalSegments(r.name).join('/') === own && ENDPOINTS[r.name].template.includes('{'),
    );
  }).map(({ name }) => name),
);

/** Whether a segment of an encoded value (one or two segments) is a template's literal. */
function hasLiteral(encoded: string): boolean {
  const slash = encoded.indexOf('/');
  if (slash < 0) return LITERALS.has(encoded);
  return LITERALS.has(encoded.slice(0, slash)) || LITERALS.has(encoded.slice(slash + 1));
}

/** An id or slug that encodeURIComponent leaves as it is, with no '.' or '..' segment: most are. */
const PLAIN_ID = /^[\w-]+(?:\/[\w-]+)?$/;

/** Fill the endpoint's template; throws RequestInvalidError when the template needs a value not given. */
export function buildPath(endpoint: EndpointName, params: { id?: string; slug?: string } = {}): string {
  const template: string = ENDPOINTS[endpoint].template;
  const param = template.includes('{id}') ? 'id' : template.includes('{slug}') ? 'slug' : null;
  if (param === null) return template;
  const value = params[param];
  if (value === undefined) throw invalid(endpoint, `${param} is required`, '');
  // A plain value passes both encoders unchanged and valid (a slug has no '/').
  const plain = typeof value === 'string' && PLAIN_ID.test(value) && (param === 'id' || !value.includes('/'));
  const encoded = plain
    ? value
    : param === 'id'
      ? encodeFragranceId(endpoint, value)
      : encodeSlug(endpoint, value);
  // A replacer function: a string replacement would interpret '$&' and friends.
  const path = template.replace(`{${param}}`, () => encoded);
  if (!CLEAR_UNLESS_LITERAL.has(endpoint) || hasLiteral(encoded)) assertUnambiguous(endpoint, path, value);
  return path;
}
