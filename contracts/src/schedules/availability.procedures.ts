import { mutation, query } from '../procedure';
import {
  availabilityMeta as meta,
  ZAvailability,
  ZCreateOutOfOfficeInput,
  ZOutOfOffice,
  ZOutOfOfficeId,
  ZSetWorkingHoursInput,
} from './availability.contract';

export const availabilityProcedures = {
  get: query({ meta: meta.get, output: ZAvailability }),
  setWorkingHours: mutation({
    meta: meta.setWorkingHours,
    input: ZSetWorkingHoursInput,
    output: ZAvailability,
  }),
  createOutOfOffice: mutation({
    meta: meta.createOutOfOffice,
    input: ZCreateOutOfOfficeInput,
    output: ZOutOfOffice,
  }),
  deleteOutOfOffice: mutation({ meta: meta.deleteOutOfOffice, input: ZOutOfOfficeId, output: ZOutOfOffice }),
};
