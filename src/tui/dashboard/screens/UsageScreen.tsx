import { Box, Text } from 'ink';
import { BarChart } from '../components/BarChart.js';
import { Loadable } from '../components/Loadable.js';
import { Table, type Column } from '../components/Table.js';
import { count, credits, day } from '../format.js';
import type { ScreenProps } from '../session.js';
import { NoApp } from './NoApp.js';
import { TOP, useUsageScreen, type Metric, type UsageData } from './usage.js';

const REQUESTS: Column = { title: 'Req.', width: 6, align: 'right' };
const CREDITS: Column = { title: 'Credits', width: 9, align: 'right' };
/** Input tokens read from the prompt cache: what makes a long conversation cheap. */
const CACHED: Column = { title: 'Cached', width: 7, align: 'right' };

/** Title, totals, the chart's caption and axes, the tables' title and header: rows the bars do not get. */
const FIXED_ROWS = 7;

function Tables({ data, width, rows }: { data: UsageData; width: number; rows: number }) {
  const half = Math.floor((width - 1) / 2);
  const models = data.models;
  return (
    <Box>
      <Box flexDirection="column" width={half} marginRight={1}>
        <Text bold>By model</Text>
        <Table
          columns={[{ title: 'Model' }, REQUESTS, CACHED, CREDITS]}
          rows={models.slice(0, rows).map((row) => [row.model, count(row.requests), count(row.cached_input_tokens), credits(row.credits)])}
          cursor={null}
          height={rows + 1}
          width={half}
        />
      </Box>
      <Box flexDirection="column" width={width - half - 1}>
        <Text bold>Top users</Text>
        <Table
          columns={[{ title: 'User' }, REQUESTS, CREDITS]}
          rows={data.topUsers.slice(0, rows).map((row) => [row.address ?? 'API keys', count(row.requests), credits(row.credits)])}
          cursor={null}
          height={rows + 1}
          width={width - half - 1}
        />
      </Box>
    </Box>
  );
}

const bucketLabel = (start: string, hourly: boolean) => (hourly ? `${start.slice(5, 10)} ${start.slice(11, 13)}h` : start.slice(5, 10));

export function UsageScreen({ session, width, height }: ScreenProps) {
  const screen = useUsageScreen(session);
  session.registerKeys('usage', screen.handle);
  if (!screen.app) return <NoApp session={session} />;
  const metric: Metric = screen.metric;
  const tableRows = height >= 16 ? TOP : 2;
  const chartRows = Math.max(2, height - FIXED_ROWS - tableRows);
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        Usage of {screen.app.name}, last {screen.span.label}
      </Text>
      <Loadable resource={screen.resource} what="usage">
        {(data) => (
          <Box flexDirection="column">
            <Text wrap="truncate-end">
              {day(data.window.start)} – {day(data.window.end)}: {count(data.usage.totals.requests)} requests ·{' '}
              {credits(data.usage.totals.credits)} credits · {count(data.usage.totals.input_tokens)} tokens in (
              {count(data.usage.totals.cached_input_tokens)} cached), {count(data.usage.totals.output_tokens)} out
            </Text>
            {data.usage.totals.requests === 0 ? (
              <Box height={chartRows + 3}>
                <Text dimColor wrap="wrap">
                  No requests to {screen.app?.name} in this window. w picks a longer one.
                </Text>
              </Box>
            ) : (
              <BarChart
                values={data.usage.data.map((bucket) => (metric === 'credits' ? bucket.credits : bucket.requests))}
                labels={data.usage.data.map((bucket) => bucketLabel(bucket.start, data.granularity === 'hour'))}
                rows={chartRows}
                width={width}
                unit={metric}
                bucket={data.granularity}
              />
            )}
            <Tables data={data} width={width} rows={tableRows} />
          </Box>
        )}
      </Loadable>
    </Box>
  );
}
