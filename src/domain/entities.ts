/** The kinds of things the mirror holds, each with its own key (an id or a slug). */
export type EntityKind = 'fragrance' | 'brand' | 'perfumer' | 'note' | 'accord' | 'chart';

/** Datasets per entity: fragrance profile/similar/wearing/reviews/reviewDigest; brand profile/catalogue; perfumer, note, chart: profile. */
export type Dataset = 'profile' | 'similar' | 'wearing' | 'reviews' | 'reviewDigest' | 'catalogue';
