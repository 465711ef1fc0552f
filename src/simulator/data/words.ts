/**
 * Word lists the catalogue generator combines into names. Accents, CJK and an occasional
 * emoji are deliberate: clients must carry unicode through to the warehouse untouched.
 */

export const ACCORD_FAMILIES: { family: string; accords: string[] }[] = [
  {
    family: 'floral',
    accords: [
      'floral', 'white floral', 'yellow floral', 'rose', 'iris', 'violet', 'tuberose',
      'jasmine', 'lily', 'orange blossom', 'peony', 'magnolia',
    ],
  },
  {
    family: 'woody',
    accords: [
      'woody', 'oud', 'sandalwood', 'cedar', 'vetiver', 'patchouli', 'mossy', 'earthy',
      'conifer', 'birch', 'guaiac', 'cypress',
    ],
  },
  {
    family: 'amber',
    accords: [
      'amber', 'balsamic', 'resinous', 'incense', 'vanilla', 'warm spicy', 'labdanum',
      'benzoin', 'myrrh', 'tonka', 'smoky', 'tobacco',
    ],
  },
  {
    family: 'fresh',
    accords: [
      'fresh', 'citrus', 'aquatic', 'marine', 'ozonic', 'green', 'aromatic', 'herbal',
      'lavender', 'mint', 'fresh spicy', 'aldehydic',
    ],
  },
  {
    family: 'gourmand',
    accords: [
      'sweet', 'caramel', 'honey', 'chocolate', 'coffee', 'almond', 'coconut', 'lactonic',
      'praline', 'cinnamon', 'rum', 'whiskey',
    ],
  },
  {
    family: 'fruity',
    accords: [
      'fruity', 'tropical', 'cherry', 'berry', 'apple', 'pear', 'peach', 'plum', 'fig',
      'grapefruit', 'blackcurrant', 'melon',
    ],
  },
  {
    family: 'musk',
    accords: [
      'musky', 'powdery', 'soapy', 'clean', 'animalic', 'leather', 'suede', 'skin',
      'salty', 'mineral', 'metallic', 'camphor',
    ],
  },
  {
    family: 'other',
    accords: ['tea', 'wine', 'anis', 'rice', 'milky', 'nutty'],
  },
];

export const NOTE_BASES: { name: string; family: string }[] = [
  ...[
    'Bergamot', 'Lemon', 'Mandarin Orange', 'Grapefruit', 'Lime', 'Yuzu', 'Bitter Orange',
    'Neroli', 'Petitgrain', 'Citron', 'Blood Orange', 'Kumquat', 'Clementine', 'Pomelo',
  ].map((name) => ({ name, family: 'citrus' })),
  ...[
    'Rose', 'Jasmine', 'Tuberose', 'Iris', 'Violet', 'Lily-of-the-Valley', 'Orange Blossom',
    'Ylang-Ylang', 'Magnolia', 'Peony', 'Gardenia', 'Freesia', 'Mimosa', 'Heliotrope', 'Orchid',
    'Lotus', 'Osmanthus', 'Frangipani', 'Carnation', 'Geranium', 'Honeysuckle', 'Lilac',
    'Cherry Blossom', 'Champaca', 'Narcissus', 'Hyacinth', 'Plumeria', 'Water Lily',
  ].map((name) => ({ name, family: 'floral' })),
  ...[
    'Sandalwood', 'Cedarwood', 'Vetiver', 'Patchouli', 'Oud', 'Guaiac Wood', 'Birch', 'Cypress',
    'Pine', 'Oakmoss', 'Cashmeran', 'Ebony', 'Teak', 'Rosewood', 'Hinoki', 'Papyrus',
    'Driftwood', 'Fir Balsam', 'Agarwood', 'Cork',
  ].map((name) => ({ name, family: 'woody' })),
  ...[
    'Amber', 'Vanilla', 'Tonka Bean', 'Benzoin', 'Labdanum', 'Myrrh', 'Frankincense', 'Opoponax',
    'Styrax', 'Elemi', 'Copal', 'Peru Balsam', 'Tolu Balsam', 'Ambergris',
  ].map((name) => ({ name, family: 'amber' })),
  ...[
    'Pink Pepper', 'Black Pepper', 'Cardamom', 'Cinnamon', 'Clove', 'Nutmeg', 'Saffron', 'Ginger',
    'Cumin', 'Coriander', 'Star Anise', 'Juniper Berries', 'Sichuan Pepper', 'Caraway',
  ].map((name) => ({ name, family: 'spicy' })),
  ...[
    'Lavender', 'Rosemary', 'Basil', 'Mint', 'Sage', 'Thyme', 'Tarragon', 'Artemisia',
    'Violet Leaf', 'Fig Leaf', 'Galbanum', 'Green Tea', 'Matcha', 'Bamboo', 'Tomato Leaf',
    'Cut Grass', 'Mate', 'Shiso',
  ].map((name) => ({ name, family: 'aromatic' })),
  ...[
    'Apple', 'Pear', 'Peach', 'Plum', 'Blackcurrant', 'Raspberry', 'Strawberry', 'Cherry',
    'Fig', 'Coconut', 'Pineapple', 'Mango', 'Lychee', 'Passionfruit', 'Apricot', 'Melon',
    'Quince', 'Pomegranate', 'Rhubarb', 'Date',
  ].map((name) => ({ name, family: 'fruity' })),
  ...[
    'Caramel', 'Honey', 'Praline', 'Chocolate', 'Coffee', 'Almond', 'Hazelnut', 'Pistachio',
    'Chestnut', 'Marshmallow', 'Milk', 'Rice', 'Cotton Candy', 'Licorice', 'Rum', 'Cognac',
  ].map((name) => ({ name, family: 'gourmand' })),
  ...[
    'Musk', 'White Musk', 'Ambrette', 'Leather', 'Suede', 'Castoreum', 'Civet', 'Ambroxan',
    'Iso E Super', 'Aldehydes', 'Sea Salt', 'Sea Notes', 'Ozonic Notes', 'Calone', 'Tobacco',
    'Incense', 'Birch Tar', 'Smoke', 'Mineral Notes', 'Rain',
  ].map((name) => ({ name, family: 'musk & animalic' })),
  { name: 'Fève Tonka', family: 'amber' },
  { name: 'Bois de Cèdre', family: 'woody' },
  { name: 'Néroli Bigarade', family: 'citrus' },
  { name: '柚子', family: 'citrus' },
  { name: 'Crème Brûlée', family: 'gourmand' },
  { name: 'Maté Vert', family: 'aromatic' },
];

export const NOTE_PREFIXES = [
  'Bulgarian', 'Turkish', 'Sicilian', 'Calabrian', 'Haitian', 'Madagascar', 'Indian',
  'Tahitian', 'Egyptian', 'Moroccan', 'Italian', 'Japanese', 'Sri Lankan', 'Virginian',
  'Atlas', 'Australian', 'Mexican', 'Provençal', 'Javanese', 'Laotian', 'Guatemalan',
  'Brazilian', 'Tunisian', 'Chinese', 'Corsican', 'Somalian',
];
export const NOTE_SUFFIXES = ['Absolute', 'Essence', 'Accord', 'Leaf', 'Blossom', 'CO2', 'Tincture', 'Resin'];

export const BRAND_PREFIXES = [
  'Maison', 'Atelier', 'Parfums', 'House of', 'Les', 'Casa', 'Studio', 'Officina', 'Laboratoire',
  'Jardins', 'Ateliers', 'Profumi', '',
];
export const BRAND_WORDS = [
  'Lumière', 'Noir', 'Ambre', 'Sakura', 'Vétiver', 'Orris', 'Aurore', 'Solstice', 'Boréal',
  'Céleste', 'Olfactive', 'Alchimie', 'Mirage', 'Nomade', 'Sillage', 'Éther', 'Velours',
  'Obscura', 'Fleur', 'Givre', 'Cendre', 'Zéphyr', 'Oriente', 'Riviera', 'Kyōto', 'Sable',
  'Azur', 'Bruma', 'Ombre', 'Lune', 'Soleil', 'Terre', 'Marée', 'Forêt', 'Brume', 'Éclat',
  'Cuir', 'Santal', 'Musc', 'Iris', 'Jasmin', 'Tabac', 'Encens', 'Rosée', 'Aube', 'Crépuscule',
  'Nord', 'Midi', 'Oasis', 'Safran', 'Atlas', 'Nuage', 'Pluie', 'Orage', 'Cristal', 'Ivoire',
  'Onyx', 'Jade', 'Opale', 'Ébène', 'Cèdre', 'Myrrhe', 'Benjoin', 'Tonka', 'Néroli', 'Bergamote',
  '香水', '月光', 'Hana', 'Kaze', 'Mori', 'Umi', 'Yoru', 'Sora', 'Yuki', 'Tsuki', 'Hoshi',
  'Aria', 'Dolce', 'Notte', 'Vento', 'Mare', 'Sole', 'Luce', 'Terra', 'Fiore', 'Nebbia',
];
export const BRAND_SUFFIXES = ['', '', '', ' Paris', ' Milano', ' Tokyo', ' & Co', ' Parfums', ' London', ' Grasse'];

export const COUNTRIES = [
  'France', 'Italy', 'United States', 'United Kingdom', 'Japan', 'Spain', 'Germany',
  'United Arab Emirates', 'Brazil', 'Sweden', 'Switzerland', 'South Korea', 'India',
  'Netherlands', 'Lebanon', 'Türkiye', 'Mexico', 'Canada', 'Australia', 'Côte d’Ivoire',
];

export const FIRST_NAMES = [
  'Jean-Claude', 'Françoise', 'Dominique', 'Alberto', 'Olivia', 'Jacques', 'Sophie', 'Olivier',
  'Mathilde', 'Christophe', 'Nathalie', 'Thierry', 'Daniela', 'Annick', 'Carlos', 'Maurice',
  'Émilie', 'Quentin', 'Calice', 'Honorine', 'Bertrand', 'Aurélien', 'Juliette', 'Marc-Antoine',
  'Jun', 'Yuko', 'Hiroshi', 'Aiko', 'Ji-woo', 'Min-jun', 'Ahmed', 'Leila', 'Omar', 'Noor',
  'Lucas', 'Isabela', 'Björn', 'Ingrid', 'Søren', 'Zoë', 'Ramón', 'Lucía', 'Giorgio', 'Chiara',
  'Rodrigo', 'Anne-Sophie', 'Fabrice', 'Cécile', 'Hélène', 'Loïc', 'Gaëlle', 'Mark', 'Sarah',
  'David', 'Emma', 'Liam', 'Priya', 'Arjun', 'Mei', 'Wei', 'Ana', 'Tomás',
];
export const LAST_NAMES = [
  'Ellena', 'Caron', 'Ropion', 'Morillas', 'Giacobetti', 'Cavallier', 'Labbé', 'Polge',
  'Wasser', 'Ménardo', 'Flores-Roux', 'Roucel', 'Bourdon', 'Kurkdjian', 'Duchaufour',
  'Sieuzac', 'Guichard', 'Nagel', 'Becker', 'Tanaka', 'Suzuki', 'Yamamoto', 'Kim', 'Park',
  'Haddad', 'Nasser', 'Silva', 'Pereira', 'Lindqvist', 'Østergaard', 'García', 'Núñez',
  'Rossi', 'Bianchi', 'Ricci', 'Moreau', 'Lefèvre', 'Dubois', 'Fontaine', 'Girard', 'Mercier',
  'Chevalier', 'Bonnet', 'François', 'Legrand', 'Gauthier', 'Perrin', 'Smith', 'Johnson',
  'Williams', 'Sharma', 'Patel', 'Chen', 'Wang', 'Li', 'Zhang', 'Müller', 'Schmidt', 'Novak',
  'Kowalski',
];
export const NATIONALITIES = [
  'French', 'Italian', 'American', 'British', 'Japanese', 'Spanish', 'German', 'Brazilian',
  'Swiss', 'Korean', 'Indian', 'Lebanese', 'Swedish', 'Danish', 'Mexican', 'Chinese',
];

export const FRAGRANCE_FIRST = [
  'Rose', 'Oud', 'Nuit', 'Ambre', 'Bois', 'Iris', 'Musc', 'Fleur', 'Eau', 'Santal', 'Vétiver',
  'Cuir', 'Tabac', 'Jasmin', 'Néroli', 'Encens', 'Vanille', 'Figue', 'Thé', 'Lavande', 'Patchouli',
  'Ombre', 'Lumière', 'Soleil', 'Orage', 'Velvet', 'Midnight', 'Golden', 'Silver', 'Wild',
  'Sacred', 'Lost', 'Secret', 'Electric', 'Velours', 'Cristal', 'Black', 'White', 'Blue', 'Red',
];
export const FRAGRANCE_SECOND = [
  'Noire', 'Impérial', 'Blanche', 'd’Été', 'd’Hiver', 'Sauvage', 'Absolue', 'Intense', 'Privée',
  'Céleste', 'Mystique', 'Royale', 'Boisée', 'Poudrée', 'Épicée', 'Orientale', 'Fraîche', 'Nomade',
  'Garden', 'Harbour', 'Desert', 'Forest', 'Orchard', 'Library', 'Temple', 'Ritual', 'Smoke',
  'Bloom', 'Storm', 'Dream', 'Reverie', 'Elixir', 'Extrait', 'Cologne', 'Nectar', 'Mirage',
];
export const FRAGRANCE_CJK = ['桜の夢', '東京の夜', '白檀', '月の庭', '雨の音', '青い森', '花火', '静寂'];
export const FRAGRANCE_EMOJI = ['🌹', '🌙', '✨', '🔥', '🌊', '🍋'];
export const FRAGRANCE_FLANKERS = ['', '', '', '', ' Eau de Parfum', ' Eau de Toilette', ' Intense', ' Extrait', ' No. 5', ' II'];

export const REVIEW_PHRASES = [
  'Beautiful opening, dries down to a soft musk.',
  'Too sweet for me after an hour.',
  'Longevity is amazing, 10+ hours on skin.',
  'Smells exactly like my grandmother’s garden.',
  'Une merveille. Le fond boisé est sublime.',
  'Projection is weak but the scent is lovely.',
  'Perfect for autumn evenings ☕🍂',
  'Reminds me of a rainy day in Kyōto — 雨の日の京都みたい。',
  'Overpriced, but I keep reaching for it.',
  'Blind bought it and regret nothing!',
  'Sharp and synthetic at first, then gorgeous.',
  'Meh.',
  'Compliment magnet at the office.',
  'Huele increíble, dura todo el día.',
  'A masterpiece of restraint.',
  'Linear, but the line is beautiful.',
];

export const MOODS = [
  'romantic', 'confident', 'relaxed', 'energetic', 'mysterious', 'playful', 'elegant',
  'cozy', 'sensual', 'fresh', 'nostalgic', 'bold',
];
export const OCCASIONS = ['daily', 'office', 'evening', 'date night', 'leisure', 'sport', 'formal', 'travel'];

export const TRENDING_QUERIES = [
  'vanilla', 'oud', 'summer fresh', 'office safe', 'rose', 'clean musk', 'tobacco vanilla',
  'iris', 'date night', 'cherry', 'sandalwood', 'niche under 100',
];
