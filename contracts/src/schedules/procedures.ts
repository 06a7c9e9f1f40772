import { z } from 'zod';
import { mutation, query } from '../procedure';
import {
  scheduleMeta,
  ZCalendarUrl,
  ZCreateOverrideInput,
  ZCreateScheduleInput,
  ZOnCall,
  ZOnCallInput,
  ZOverride,
  ZOverrideId,
  ZReplaceScheduleInput,
  ZSchedule,
  ZScheduleId,
  ZShift,
  ZShiftsInput,
} from './schedules.contract';
import { swapMeta, ZSwap, ZSwapInput } from './swaps.contract';

export const schedulesProcedures = {
  list: query({ meta: scheduleMeta.list, output: z.array(ZSchedule) }),
  create: mutation({ meta: scheduleMeta.create, input: ZCreateScheduleInput, output: ZSchedule }),
  get: query({ meta: scheduleMeta.get, input: ZScheduleId, output: ZSchedule }),
  replace: mutation({ meta: scheduleMeta.replace, input: ZReplaceScheduleInput, output: ZSchedule }),
  delete: mutation({ meta: scheduleMeta.delete, input: ZScheduleId, output: ZSchedule }),
  onCall: query({ meta: scheduleMeta.onCall, input: ZOnCallInput, output: ZOnCall }),
  listOverrides: query({ meta: scheduleMeta.listOverrides, input: ZScheduleId, output: z.array(ZOverride) }),
  createOverride: mutation({
    meta: scheduleMeta.createOverride,
    input: ZCreateOverrideInput,
    output: ZOverride,
  }),
  deleteOverride: mutation({ meta: scheduleMeta.deleteOverride, input: ZOverrideId, output: ZOverride }),
  swap: mutation({ meta: swapMeta.swap, input: ZSwapInput, output: ZSwap }),
  shifts: query({ meta: scheduleMeta.shifts, input: ZShiftsInput, output: z.array(ZShift) }),
  calendarUrl: query({ meta: scheduleMeta.calendarUrl, input: ZScheduleId, output: ZCalendarUrl }),
  myCalendarUrl: query({ meta: scheduleMeta.myCalendarUrl, output: ZCalendarUrl }),
};
