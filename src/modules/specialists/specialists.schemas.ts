// The catalog's wire shapes live in the contracts, so the web app's form checks with the same rules.
export {
  CreateSpecialistSchema,
  MonthlyRateConfigSchema,
  SPECIALIST_SLUG,
  SpecialistDtoSchema,
  SpecialistIdParamsSchema,
  UpdateSpecialistSchema,
  type CreateSpecialistInput,
  type SpecialistDto,
  type UpdateSpecialistInput,
} from '../../contracts/specialists.js';
