import { useEffect, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import { Alert, Button, Typography } from 'antd';
import { CloseOutlined } from '@ant-design/icons';
import { PLAYER_MIN_HEIGHT, PLAYER_MIN_WIDTH, objectMessages, type MediaPlayback } from '@cumulo/contract';

/** The window's place and size, in CSS pixels of the viewport. */
export interface PlayerBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The size a resize asks for, never below the spec's 100×50. */
function resizedBox(box: PlayerBox, dx: number, dy: number): PlayerBox {
  return {
    ...box,
    width: Math.max(PLAYER_MIN_WIDTH, box.width + dx),
    height: Math.max(PLAYER_MIN_HEIGHT, box.height + dy),
  };
}

/** The place a drag asks for, kept so the title bar stays on screen (it is the only handle to drag it back). */
function movedBox(box: PlayerBox, dx: number, dy: number, viewport: { width: number; height: number }) {
  const grip = 40;
  return {
    ...box,
    x: Math.min(Math.max(box.x + dx, grip - box.width), viewport.width - grip),
    y: Math.min(Math.max(box.y + dy, 0), viewport.height - TITLE_BAR_PX),
  };
}

const TITLE_BAR_PX = 28;
/** How far one arrow key moves or resizes the window. */
const KEY_STEP_PX = 10;
const INITIAL = { width: 480, height: 300, margin: 24 };

const viewport = () => ({ width: window.innerWidth, height: window.innerHeight });

function initialBox(): PlayerBox {
  const { width, height } = viewport();
  return {
    width: INITIAL.width,
    height: INITIAL.height,
    x: Math.max(0, width - INITIAL.width - INITIAL.margin),
    y: Math.max(0, height - INITIAL.height - INITIAL.margin),
  };
}

const ARROWS: Record<string, [number, number]> = {
  ArrowLeft: [-KEY_STEP_PX, 0],
  ArrowRight: [KEY_STEP_PX, 0],
  ArrowUp: [0, -KEY_STEP_PX],
  ArrowDown: [0, KEY_STEP_PX],
};

/**
 * Follows a pointer from pointerdown to pointerup on the element that captured it, calling `apply` with the
 * distance from where it started (so rounding never accumulates).
 */
function usePointerGesture(apply: (start: PlayerBox, dx: number, dy: number) => void, box: PlayerBox) {
  const start = useRef<{ x: number; y: number; box: PlayerBox } | null>(null);
  return {
    onPointerDown: (event: PointerEvent<HTMLElement>) => {
      if (event.button !== 0) return;
      event.currentTarget.setPointerCapture(event.pointerId);
      start.current = { x: event.clientX, y: event.clientY, box };
    },
    onPointerMove: (event: PointerEvent<HTMLElement>) => {
      const from = start.current;
      if (from) apply(from.box, event.clientX - from.x, event.clientY - from.y);
    },
    onPointerUp: () => {
      start.current = null;
    },
  };
}

type Engine = 'file' | 'hls.js' | 'native';

let hlsModule: Promise<typeof import('hls.js')> | null = null;
/** hls.js (near 190 KB gzip) is fetched the first time an HLS stream plays, once; no other page loads it. */
const loadHls = () => (hlsModule ??= import('hls.js'));

/** Whether Media Source Extensions exist (ManagedMediaSource on iOS Safari), which hls.js plays through. */
function hasMediaSource(): boolean {
  return 'MediaSource' in window || 'ManagedMediaSource' in window;
}

/**
 * The <video> of a playback URL. A file plays from its URL directly. HLS plays through hls.js, loaded only here,
 * wherever Media Source Extensions exist, and natively only where they do not: Chromium answers "maybe" for HLS
 * today, but hls.js plays the same everywhere and tells us why a stream failed.
 */
function PlayerVideo({ playback, onFailed }: { playback: MediaPlayback; onFailed(): void }) {
  const video = useRef<HTMLVideoElement>(null);
  const [engine, setEngine] = useState<Engine | null>(playback.kind === 'file' ? 'file' : null);

  useEffect(() => {
    const element = video.current;
    if (!element || playback.kind !== 'hls') return;
    let cancelled = false;
    let release = () => {};
    const start = async () => {
      if (hasMediaSource()) {
        const { default: Hls } = await loadHls();
        if (cancelled) return;
        if (Hls.isSupported()) {
          const hls = new Hls();
          hls.on(Hls.Events.ERROR, (_event, data) => {
            if (data.fatal) onFailed();
          });
          hls.loadSource(playback.url);
          hls.attachMedia(element);
          release = () => hls.destroy();
          setEngine('hls.js');
          return;
        }
      }
      if (element.canPlayType('application/vnd.apple.mpegurl')) {
        element.src = playback.url;
        setEngine('native');
        return;
      }
      onFailed();
    };
    start().catch(onFailed);
    return () => {
      cancelled = true;
      release();
    };
  }, [playback, onFailed]);

  return (
    <video
      ref={video}
      aria-label="Video"
      data-engine={engine ?? undefined}
      src={playback.kind === 'file' ? playback.url : undefined}
      controls
      autoPlay
      playsInline
      onError={onFailed}
      style={{ width: '100%', height: '100%', background: '#000', display: 'block' }}
    />
  );
}

export interface FloatingPlayerProps {
  title: string;
  playback: MediaPlayback;
  onClose(): void;
}

/**
 * The floating video player (spec 001 §2 Dialogs, "minimum size 100x50"): a window over the page, not a modal, so
 * the member browses on while it plays; dragged by its title bar, resized from its corner (or with the arrow
 * keys on either), never smaller than 100×50.
 */
export function FloatingPlayer({ title, playback, onClose }: FloatingPlayerProps) {
  const [box, setBox] = useState(initialBox);
  const [failed, setFailed] = useState(false);
  const onFailed = useRef(() => setFailed(true)).current;
  const drag = usePointerGesture((from, dx, dy) => setBox(movedBox(from, dx, dy, viewport())), box);
  const resize = usePointerGesture((from, dx, dy) => setBox(resizedBox(from, dx, dy)), box);

  const onKey = (change: (from: PlayerBox, dx: number, dy: number) => PlayerBox) => {
    return (event: KeyboardEvent<HTMLElement>) => {
      const step = ARROWS[event.key];
      if (!step) return;
      event.preventDefault();
      setBox((from) => change(from, step[0], step[1]));
    };
  };

  return (
    <section
      role="dialog"
      aria-modal="false"
      aria-label={`Video player: ${title}`}
      style={{
        position: 'fixed',
        left: box.x,
        top: box.y,
        width: box.width,
        height: box.height,
        minWidth: PLAYER_MIN_WIDTH,
        minHeight: PLAYER_MIN_HEIGHT,
        // Under antd's modals (1000), over the page.
        zIndex: 999,
        display: 'flex',
        flexDirection: 'column',
        background: '#000',
        borderRadius: 6,
        boxShadow: '0 6px 24px rgba(0, 0, 0, 0.35)',
        overflow: 'hidden',
      }}
    >
      <div
        {...drag}
        role="toolbar"
        aria-label="Move the player (drag, or arrow keys)"
        tabIndex={0}
        onKeyDown={onKey((from, dx, dy) => movedBox(from, dx, dy, viewport()))}
        style={{
          height: TITLE_BAR_PX,
          flex: `0 0 ${TITLE_BAR_PX}px`,
          display: 'flex',
          alignItems: 'center',
          gap: 4,
          paddingInline: 8,
          background: '#1f1f1f',
          cursor: 'move',
          touchAction: 'none',
          userSelect: 'none',
        }}
      >
        <Typography.Text ellipsis style={{ color: '#fff', flex: 1, minWidth: 0 }} title={title}>
          {title}
        </Typography.Text>
        <Button
          type="text"
          size="small"
          aria-label="Close the player"
          icon={<CloseOutlined style={{ color: '#fff' }} />}
          onPointerDown={(event) => event.stopPropagation()}
          onClick={onClose}
        />
      </div>
      <div style={{ flex: 1, minHeight: 0, position: 'relative' }}>
        {failed ? (
          <Alert type="error" showIcon title={objectMessages.playFailed} style={{ margin: 8 }} />
        ) : (
          <PlayerVideo playback={playback} onFailed={onFailed} />
        )}
      </div>
      <div
        {...resize}
        role="slider"
        aria-label="Resize the player (drag, or arrow keys)"
        aria-valuetext={`${box.width} × ${box.height}`}
        aria-valuenow={box.width}
        tabIndex={0}
        onKeyDown={onKey(resizedBox)}
        style={{
          position: 'absolute',
          right: 0,
          bottom: 0,
          width: 14,
          height: 14,
          cursor: 'nwse-resize',
          touchAction: 'none',
          background: 'linear-gradient(135deg, transparent 50%, rgba(255, 255, 255, 0.6) 50%)',
        }}
      />
    </section>
  );
}
