export interface LocalTime {
  timezone: string;
  /** YYYY-MM-DD in the timezone. */
  date: string;
  /** HH:mm, 24-hour. */
  time: string;
  weekday: string;
  /** `GMT+01:00` style. */
  utcOffset: string;
  utc: string;
}

/** The wall-clock date and time of an IANA timezone at a given instant. */
export function localTimeIn(timezone: string, now: Date): LocalTime {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    weekday: 'long',
    timeZoneName: 'longOffset',
  }).formatToParts(now);
  const get = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return {
    timezone,
    date: `${get('year')}-${get('month')}-${get('day')}`,
    time: `${get('hour')}:${get('minute')}`,
    weekday: get('weekday'),
    utcOffset: get('timeZoneName') === 'GMT' ? 'GMT+00:00' : get('timeZoneName'),
    utc: now.toISOString(),
  };
}
