import { defineCollection, z } from 'astro:content';
import { docsLoader } from '@astrojs/starlight/loaders';
import { docsSchema } from '@astrojs/starlight/schema';

export const collections = {
  docs: defineCollection({
    loader: docsLoader(),
    schema: docsSchema({
      extend: z.object({
        // A chapter of the course. On a chapter's page every code block must be an <Excerpt> or
        // a <RunOutput>; `pnpm check:excerpts` fails on anything pasted.
        chapter: z.number().int().positive().optional(),
      }),
    }),
  }),
};
