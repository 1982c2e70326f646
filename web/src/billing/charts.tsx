import '@mantine/charts/styles.css';
import { AreaChart, BarChart, DonutChart } from '@mantine/charts';
import { Card, SegmentedControl, Stack, Text } from '@mantine/core';
import type { CostSlice } from '@contracts';
import type { ReactNode } from 'react';
import { useUrlParams } from '../ops/url-state';
import { formatUsd } from './billing.api';

const COLORS = ['indigo.6', 'teal.6', 'orange.6', 'grape.6', 'cyan.6', 'red.6', 'lime.6', 'pink.6'];
const usd = (v: number) => formatUsd(Math.round(v * 1_000_000));

/** A titled card around one chart, with an accessible name for tests and screen readers. */
export function ChartCard({ title, testId, children }: { title: string; testId: string; children: ReactNode }) {
  return (
    <Card withBorder data-testid={testId} aria-label={title}>
      <Stack gap="xs">
        <Text fw={600}>{title}</Text>
        {children}
      </Stack>
    </Card>
  );
}

/** Daily LLM cost (micro-USD points) as an area chart in USD. */
export function CostTrendChart({ points }: { points: Array<{ day: string; costMicroUsd: number }> }) {
  const data = points.map((p) => ({ day: p.day.slice(5), cost: p.costMicroUsd / 1_000_000 }));
  return <AreaChart h={220} data={data} dataKey="day" series={[{ name: 'cost', label: 'LLM cost (USD)', color: 'indigo.6' }]} valueFormatter={usd} curveType="monotone" withDots={false} />;
}

/** Cost slices (orgs, Specialists) as horizontal bars in USD. */
export function CostBars({ slices }: { slices: CostSlice[] }) {
  if (slices.length === 0) return <Text c="dimmed">No LLM cost in this range.</Text>;
  const data = slices.map((s) => ({ name: s.label, cost: s.costMicroUsd / 1_000_000 }));
  return (
    <BarChart
      h={Math.max(120, data.length * 36)}
      data={data}
      dataKey="name"
      orientation="vertical"
      yAxisProps={{ width: 140 }}
      series={[{ name: 'cost', label: 'LLM cost (USD)', color: 'teal.6' }]}
      valueFormatter={usd}
    />
  );
}

/** Cost slices as a donut (by purpose). */
export function CostDonut({ slices }: { slices: CostSlice[] }) {
  if (slices.length === 0) return <Text c="dimmed">No LLM cost in this range.</Text>;
  return (
    <DonutChart data={slices.map((s, i) => ({ name: s.label, value: s.costMicroUsd / 1_000_000, color: COLORS[i % COLORS.length]! }))} withLabelsLine withLabels withTooltip valueFormatter={usd} />
  );
}

/** Message usage per hour or day: client messages and replies stacked. */
export function UsageChart({ points, hourly }: { points: Array<{ at: string; clientMessages: number; specialistMessages: number }>; hourly: boolean }) {
  if (points.length === 0) return <Text c="dimmed">No messages in this range.</Text>;
  const data = points.map((p) => ({ at: hourly ? `${p.at.slice(5, 10)} ${p.at.slice(11, 13)}h` : p.at.slice(5, 10), client: p.clientMessages, replies: p.specialistMessages }));
  return (
    <BarChart
      h={220}
      data={data}
      dataKey="at"
      type="stacked"
      withLegend
      series={[
        { name: 'client', label: 'Client messages', color: 'indigo.6' },
        { name: 'replies', label: 'Specialist and Expert replies', color: 'teal.5' },
      ]}
    />
  );
}

export const RANGES = [
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
];

/** The last `days` UTC days, ending today. */
export function rangeOf(days: string): { from: string; to: string } {
  const to = new Date();
  const from = new Date(to.getTime() - (Number(days) - 1) * 86_400_000);
  return { from: from.toISOString().slice(0, 10), to: to.toISOString().slice(0, 10) };
}

export function RangePicker({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  return <SegmentedControl aria-label="Range" data={RANGES} value={value} onChange={onChange} size="xs" />;
}

const DEFAULT_DAYS = '30';

/** The range of a page's panels, in the address (`?days=7`); the default (30 days) leaves it out. */
export function useRangeParam(): [days: string, setDays: (days: string) => void] {
  const [param, setParams] = useUrlParams<'days'>();
  const raw = param('days');
  const days = RANGES.some((r) => r.value === raw) ? raw! : DEFAULT_DAYS;
  return [days, (next) => setParams({ days: next === DEFAULT_DAYS ? null : next })];
}
