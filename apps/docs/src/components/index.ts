// The lesson components, imported by the MDX under docs/ as `@lesson`.
export { default as CourseOutline } from './CourseOutline.astro';
export { default as Diagram } from './Diagram.astro';
export { default as Excerpt } from './Excerpt.astro';
export { default as LogOffsets } from './LogOffsets.astro';
export { default as Quiz } from './Quiz.astro';
export { default as RunOutput } from './RunOutput.astro';
export { default as Sequence } from './Sequence.astro';
export { default as Simulator } from './Simulator.astro';
