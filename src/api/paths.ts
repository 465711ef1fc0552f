import { RequestInvalidError } from '../errors.ts';
import { ENDPOINTS, type EndpointName } from './endpoints.ts';

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

/** Fill the endpoint's template; throws RequestInvalidError when the template needs a value not given. */
export function buildPath(endpoint: EndpointName, params: { id?: string; slug?: string } = {}): string {
  const template: string = ENDPOINTS[endpoint].template;
  if (template.includes('{id}')) {
    if (params.id === undefined) throw invalid(endpoint, 'id is required', '');
    const encoded = encodeFragranceId(endpoint, params.id);
    // A replacer function: a string replacement would interpret '$&' and friends.
    return template.replace('{id}', () => encoded);
  }
  if (template.includes('{slug}')) {
    if (params.slug === undefined) throw invalid(endpoint, 'slug is required', '');
    const encoded = encodeSlug(endpoint, params.slug);
    return template.replace('{slug}', () => encoded);
  }
  return template;
}
