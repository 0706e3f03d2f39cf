import { randomBytes } from 'node:crypto';
import type { Random } from '../../domain/shared/random.port.js';

/** The OS CSPRNG. */
export const nodeRandom: Random = { bytes: (length) => new Uint8Array(randomBytes(length)) };
