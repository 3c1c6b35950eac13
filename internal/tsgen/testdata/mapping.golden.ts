// ---- scalars

export interface scalars {
  B: boolean;
  i: number;
  u8: number;
  f: number;
  s: string;
  n: string;
  D: number;
  any: unknown;
  raw: string | null;
  Tm: string;
  txt: string;
  "-": number;
}

// ---- omitempty and omitzero

export interface omitted {
  s?: string;
  p?: scalars;
  pz?: scalars;
  l?: string[];
  m?: Record<string, number>;
  st: leaf;
  stz?: leaf;
  a0?: [];
  a2: [number, number];
  if?: unknown;
  nil: Record<string, number[] | null> | null;
}

export interface scalars {
  B: boolean;
  i: number;
  u8: number;
  f: number;
  s: string;
  n: string;
  D: number;
  any: unknown;
  raw: string | null;
  Tm: string;
  txt: string;
  "-": number;
}

// leaf is a struct that others hold.
export interface leaf {
  // X is documented.
  x: number;
  // Y has a line comment.
  y: number;
}

// ---- null

export interface nullable {
  p: leaf | null;
  l: leaf[] | null;
  lp: (leaf | null)[] | null;
  ll: (string[] | null)[] | null;
  m: Record<string, leaf[] | null> | null;
  mi: Record<string, string> | null;
  a: [leaf | null, leaf | null];
  nn: string[][];
}

// leaf is a struct that others hold.
export interface leaf {
  // X is documented.
  x: number;
  // Y has a line comment.
  y: number;
}

// ---- embedded structs

export interface embedding {
  d: number;
  a: string;
  named: inner;
}

export interface inner {
  a: number;
  b: number;
  C: number;
}

// ---- prefixed package

export interface clash {
  l: leaf;
  tl: TPos;
}

// leaf is a struct that others hold.
export interface leaf {
  // X is documented.
  x: number;
  // Y has a line comment.
  y: number;
}

export interface TPos {
  file: string;
  line: number;
}

