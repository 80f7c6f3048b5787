import { useEffect, useRef } from 'react';
import uPlot, { type AlignedData, type Options } from 'uplot';
import 'uplot/dist/uPlot.min.css';

/**
 * One uPlot chart that follows its container's width. uPlot draws on a
 * canvas; React only owns the container and rebuilds the plot when the
 * series or data change (a few hundred points: cheap).
 */
export interface ChartSeries {
  label: string;
  color: string;
  /** Bars instead of a line. */
  bars?: boolean;
  /** Always draw the points (a sparse line, e.g. a rate with gaps, would be invisible otherwise). */
  points?: boolean;
}

/** `14:00`, or `Nov 24 00:00` for the first tick and where the day changes. */
function timeLabel(seconds: number, previous: number | null): string {
  const d = new Date(seconds * 1000);
  const time = d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', hour12: false });
  const sameDay = previous !== null && new Date(previous * 1000).toDateString() === d.toDateString();
  return sameDay ? time : `${d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })} ${time}`;
}

export function Chart(props: {
  title: string;
  data: AlignedData;
  series: ChartSeries[];
  height?: number;
  /** Format of y values on the axis and in the legend. */
  value?: (v: number | null) => string;
  /** x labels for a category chart (x values are 0..n-1); otherwise x is a time in seconds. */
  categories?: string[];
}) {
  const box = useRef<HTMLDivElement>(null);
  const { title, data, series, height = 180, value, categories } = props;
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const format = (v: number | null) => (v == null ? '—' : value ? value(v) : String(v));
    const opts: Options = {
      width: Math.max(el.clientWidth, 200),
      height,
      scales: { x: { time: !categories }, y: { range: (_u, _min, max) => [0, Math.max(max, 1)] } },
      axes: [
        categories
          ? // The names go below in HTML (categoryLabels): on the canvas, long or many names overlapped.
            { show: false }
          : // Readable time labels: at least 90 px apart, short, the day only where it changes.
            { space: 90, values: (_u, ticks) => ticks.map((t, i) => timeLabel(t, i === 0 ? null : ticks[i - 1])) },
        // Wide enough for the longest value label ("1.5 s", "600 ms", "100%"): about 7 px a character at the axis' 12 px.
        { values: (_u, ticks) => ticks.map((t) => format(t)), size: (_u, values) => Math.max(44, ...(values ?? []).map((v) => String(v).length * 7 + 18)) },
      ],
      series: [
        categories ? { value: (_u, v) => categories[v] ?? '' } : {},
        ...series.map((s, i) => ({
          label: s.label,
          stroke: s.color,
          fill: s.bars ? `${s.color}cc` : undefined,
          width: s.bars ? 0 : 2,
          ...(s.points || s.bars ? { points: { show: !!s.points, size: 5 } } : {}),
          // Bar series side by side around their x: the first to the left, the second to the right.
          paths: s.bars ? uPlot.paths.bars!({ size: [0.7 / series.length, 48], align: series.length === 2 ? (i === 0 ? -1 : 1) : 0 }) : undefined,
          value: (_u: uPlot, v: number | null) => format(v),
          spanGaps: false,
        })),
      ],
      legend: { live: true },
      cursor: { drag: { x: false, y: false } },
    };
    const plot = new uPlot(opts, data, el);
    const labels = categories && categoryLabels(plot, categories);
    const observer = new ResizeObserver(() => {
      plot.setSize({ width: Math.max(el.clientWidth, 200), height });
      labels?.place();
    });
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [data, series, height, value, categories]);
  return (
    <figure className="chart card" aria-label={title}>
      <figcaption>{title}</figcaption>
      <div ref={box} className="chart-canvas" data-testid="chart" />
    </figure>
  );
}

/**
 * A category chart's x labels as one HTML row under the plot, each name in its own slot (the plot's width over the
 * categories, as the bars are placed), on up to two lines, cut with an ellipsis beyond and whole on hover: canvas labels
 * overlapped as soon as the names were longer than their slot.
 */
function categoryLabels(plot: uPlot, categories: string[]): { place: () => void } {
  const row = document.createElement('ol');
  row.className = 'chart-categories';
  row.setAttribute('aria-label', 'Categories');
  for (const name of categories) {
    const item = document.createElement('li');
    item.textContent = name;
    item.title = name;
    row.append(item);
  }
  plot.root.querySelector('.u-wrap')?.after(row);
  const place = () => {
    row.style.marginLeft = `${plot.bbox.left / uPlot.pxRatio}px`;
    row.style.width = `${plot.bbox.width / uPlot.pxRatio}px`;
  };
  place();
  return { place };
}
