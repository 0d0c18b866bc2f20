export type { Schema, Serde, SerdeType } from './serde.ts';
export { Serdes } from './serdes.ts';
