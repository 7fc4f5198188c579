import { defineCollection, z } from 'astro:content';
import { docsLoader, i18nLoader } from '@astrojs/starlight/loaders';
import { docsSchema, i18nSchema } from '@astrojs/starlight/schema';

export const collections = {
  docs: defineCollection({
    loader: docsLoader(),
    schema: docsSchema({
      extend: z.object({
        // A chapter of the course. On a chapter's page every code block must be an <Excerpt> or
        // a <RunOutput>; `pnpm check:excerpts` fails on anything pasted. The sidebar's course
        // outline links a chapter only when a page says it is that chapter.
        chapter: z.number().int().positive().optional(),
      }),
    }),
  }),
  // Starlight's interface strings in Thai: its own Thai file, completed (search results,
  // copy buttons) and reworded where a label did not fit (the theme picker's "auto").
  i18n: defineCollection({ loader: i18nLoader(), schema: i18nSchema() }),
};
