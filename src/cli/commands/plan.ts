import { EXIT } from '../exit-codes.ts';

export async function run(_argv: string[]): Promise<number> {
  console.error('fragsync plan: not implemented yet');
  return EXIT.unexpected;
}
