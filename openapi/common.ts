import { z } from 'zod';

/** The contract's error envelope; extra fields may follow `error` and `message`. */
export const ErrorBody = z
  .looseObject({
    error: z.string().describe('stable machine-readable code'),
    message: z.string().describe('human-readable explanation'),
  })
  .meta({ id: 'Error' });

/** Every /v1 and /_mock operation answers client mistakes with the envelope. */
export const errorResponses = { default: ErrorBody } as const;
