/** The fixture package whose README the runner's own tests run. */
export function greet(name: string): string {
  if (name === '') throw new Error('greet needs a name');
  return `Hello, ${name}`;
}
