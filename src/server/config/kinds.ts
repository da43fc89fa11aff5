// The kinds of value a setting takes, each with the message that names its variable when the
// value does not fit: the concerns' schemas (the other files here) are made of them.
import { z } from 'zod';

export const integer = (name: string, min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, `${name} must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.number().min(min, `${name} must be at least ${min}`).max(max, `${name} must be at most ${max}`));

export const flag = (name: string) =>
  z
    .string()
    .trim()
    .toLowerCase()
    .refine((v) => ['on', 'off', 'true', 'false', '1', '0'].includes(v), `${name} must be on or off`)
    .transform((v) => v === 'on' || v === 'true' || v === '1');

export const httpUrl = (name: string) =>
  z
    .string()
    .trim()
    .refine((v) => {
      if (!URL.canParse(v)) return false;
      const url = new URL(v);
      return (url.protocol === 'http:' || url.protocol === 'https:') && !url.search && !url.hash;
    }, `${name} must be an http(s) URL without query or fragment, e.g. http://orders.internal:8080/api`);

export const MIB = 1024 * 1024;
