import { z } from 'zod';

/** The value shapes environment variables share, each with the message an operator reads. */

export const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

export const int = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

export const commaList = z.string().transform((value) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0),
);

export const url = z.string().refine((value) => URL.canParse(value), 'must be a URL');

/** The variables as given (none unset), for what is handed on whole (a session store module). */
export type Environment = Readonly<Record<string, string | undefined>>;
