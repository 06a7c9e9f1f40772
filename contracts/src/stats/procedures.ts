import { query } from '../procedure';
import { statsMeta, ZStats } from './stats.contract';

export const statsProcedures = {
  get: query({ meta: statsMeta.get, output: ZStats }),
};
