import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import type { RateBucket } from '../../src/stats/create-rate-window';
import { formatDuration } from './format';

interface RateChartProps {
  title: string;
  field: 'requests' | 'errors' | 'fallbacks';
  buckets: readonly RateBucket[];
  bucketMs: number;
  colour: string;
}

/**
 * A small chart of one count per time bucket over the window (uPlot, canvas). It plots the counts
 * themselves: one request in a 10 s bucket is 1, not "6 per minute".
 */
export function RateChart({ title, field, buckets, bucketMs, colour }: RateChartProps) {
  const container = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);
  const xs = buckets.map((bucket) => bucket.start / 1000);
  const ys = buckets.map((bucket) => bucket[field]);
  const total = ys.reduce((sum, value) => sum + value, 0);
  const peak = ys.reduce((max, value) => Math.max(max, value), 0);

  useEffect(() => {
    if (container.current === null) return;
    plot.current = new uPlot(
      {
        width: 320,
        height: 110,
        legend: { show: false },
        cursor: { show: true, drag: { x: false, y: false } },
        scales: { y: { range: (_self, _min, max) => [0, Math.max(1, max)] } },
        axes: [
          { size: 28, font: '10px sans-serif' },
          { size: 36, font: '10px sans-serif' },
        ],
        series: [
          {},
          {
            label: title,
            stroke: colour,
            fill: `${colour}22`,
            width: 1.5,
            points: { show: false },
          },
        ],
      },
      [[], []],
      container.current,
    );
    return () => {
      plot.current?.destroy();
      plot.current = undefined;
    };
  }, [title, colour]);

  useEffect(() => {
    plot.current?.setData([xs, ys]);
  });

  return (
    <figure
      class="chart"
      data-chart={field}
      data-total={total}
      data-peak={peak}
      data-bucket-ms={bucketMs}
    >
      <figcaption>
        {title}{' '}
        <span class="muted">
          per {bucketMs % 1000 === 0 ? `${bucketMs / 1000} s` : formatDuration(bucketMs)} · {total}{' '}
          in the window
        </span>
      </figcaption>
      <div ref={container} />
    </figure>
  );
}
