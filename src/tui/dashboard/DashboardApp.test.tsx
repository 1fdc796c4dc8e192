import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApp, useTestServer } from '../../../test/helpers/api.js';
import { globalBindings, screenBindings } from './keys.js';
import { SCREENS } from './screens.js';
import { KEY, openDashboard, serverApi } from '../../../test/helpers/dashboard.js';

/** The frame around the screens: tabs, keys between screens, help, leaving, the terminal's size. */
const t = useTestServer();
afterEach(() => cleanup());

const open = (size?: { columns: number; rows: number }) => openDashboard({ api: serverApi(t), now: () => t.clock.now(), size });

/** The highlighted tab (drawn inverse, so known from the screen's own title). */
const titles: Record<string, string> = {
  apps: 'Apps (',
  keys: 'API keys of',
  users: 'Users of',
  usage: 'Usage of',
  credits: 'Balance',
  subscription: 'Subscription',
  billing: 'Billing (',
};

describe('moving between screens', () => {
  it('number keys go to each screen; each one fits 80×24', async () => {
    const dash = open();
    await dash.shows('Apps (1)');
    for (const [index, screen] of SCREENS.entries()) {
      dash.press(String(index + 1));
      await dash.shows(titles[screen.id] as string);
    }
    dash.expectFits();
  });

  it(': jumps to a screen by the start of its name; a name that is no screen says so', async () => {
    const dash = open();
    await dash.shows('Apps (1)');
    dash.press(':');
    dash.type('cr');
    await dash.shows(':cr');
    await dash.shows('Enter → Credits');
    dash.press(KEY.enter);
    await dash.shows(titles.credits as string);
    dash.press(':');
    dash.type('SUB');
    dash.press(KEY.enter);
    await dash.shows(titles.subscription as string);
    dash.press(':');
    dash.type('zz');
    await dash.shows('type a screen name');
    dash.press(KEY.enter);
    await dash.shows('No screen is called "zz"');
    dash.press(':');
    dash.type('us');
    dash.press(KEY.esc);
    await dash.hides(':us');
    expect(dash.screen()).toContain(titles.subscription as string);
  });

  it('Tab goes forward, Shift+Tab back, round the ends', async () => {
    const dash = open();
    await dash.shows('Apps (1)');
    dash.press(KEY.tab);
    await dash.shows('API keys of Default app');
    dash.press(KEY.shiftTab);
    await dash.shows('Apps (1)');
    dash.press(KEY.shiftTab);
    await dash.shows(titles.subscription as string);
    dash.press(KEY.tab);
    await dash.shows('Apps (1)');
  });

  it('Esc goes back through the screens visited', async () => {
    const dash = open();
    await dash.shows('Apps (1)');
    dash.press('3');
    await dash.shows('Users of');
    dash.press('5');
    await dash.shows('Balance');
    dash.press(KEY.esc);
    await dash.shows('Users of');
    dash.press(KEY.esc);
    await dash.shows('Apps (1)');
    dash.press(KEY.esc);
    await dash.shows('Apps (1)');
    expect(dash.exit).not.toHaveBeenCalled();
  });

  it('starts on the screen asked for', async () => {
    const dash = openDashboard({ api: serverApi(t), screen: 'credits' });
    await dash.shows('Balance 100');
  });

  it('keys that come faster than the screen redraws build on each other', async () => {
    await createApp(t, { name: 'Fast' });
    const dash = open();
    await dash.shows('Fast');
    const second = (await t.call('GET', '/api/v1/developer/apps')).body.data[1].name as string;
    dash.press(KEY.down, KEY.enter);
    await dash.shows(`API keys of ${second}`);
  });
});

describe('help and leaving', () => {
  it('? shows every key of this screen and everywhere, all of it in 80×24; ? or Esc closes it', async () => {
    const dash = open();
    await dash.shows('Apps (1)');
    dash.press('?');
    await dash.shows('Everywhere');
    for (const text of ['Ctrl+C', 'Shift+Tab', `1–${SCREENS.length}`, 'go to a screen', 'PgUp PgDn']) expect(dash.screen()).toContain(text);
    for (const entry of [/n +new app/, /Ctrl\+D +delete/, /d +describe the selected row/, /Space +pause\/resume auto-refresh/, /Enter +select/]) {
      expect(dash.screen()).toMatch(entry);
    }
    // Everything is on the one page: nothing to scroll.
    expect(dash.screen()).not.toContain('scroll');
    dash.expectFits();
    dash.press('?');
    await dash.hides('Everywhere');
    dash.press('4', '?');
    await dash.shows(/Everywhere +.*\n(.*\n)*.*Usage\n/);
    expect(dash.screen()).toMatch(/m +credits\/requests/);
    dash.press(KEY.esc);
    await dash.hides('Everywhere');
    expect(dash.screen()).toContain('Usage of');
  });

  it('the help wraps to 60 columns, nothing cut, and scrolls to its end', async () => {
    const dash = open({ columns: 60, rows: 16 });
    await dash.shows('Apps (1)');
    dash.press('?');
    await dash.shows('Everywhere');
    await dash.shows(/lines 1–\d+ of \d+ ↓/);
    const pages = [dash.screen()];
    while (!/lines \d+–(\d+) of \1 ↑/.test(pages.at(-1) ?? '')) {
      const before = dash.screen();
      dash.press(KEY.pageDown);
      await vi.waitFor(() => expect(dash.screen()).not.toBe(before), { timeout: 15_000 });
      pages.push(dash.screen());
      expect(pages.length).toBeLessThan(10);
    }
    dash.expectFits();
    // Every description is there whole, its words in order across the lines it wraps onto.
    const words = pages.join('\n').replace(/\s+/g, ' ');
    for (const binding of [...globalBindings.filter((entry) => !SCREENS.some((screen) => screen.id === entry.action)), ...screenBindings.apps]) {
      expect(words).toContain(`${binding.keys} ${binding.description}`);
    }
    expect(words).toContain('Home End first row / last row');
    dash.press(KEY.home);
    await dash.shows(/lines 1–\d+ of \d+ ↓/);
    dash.press('?');
    await dash.hides('Everywhere');
  });

  it('q quits; so does Ctrl+C, even in a dialog', async () => {
    const dash = open();
    await dash.shows('Apps (1)');
    dash.press('q');
    expect(dash.exit).toHaveBeenCalledTimes(1);
    const other = open();
    await other.shows('Apps (1)');
    other.press('n');
    await other.shows('New app');
    other.press(KEY.ctrlC);
    expect(other.exit).toHaveBeenCalledTimes(1);
  });

  it('a dialog has every key: q, digits and ? are typed, not obeyed', async () => {
    const dash = open();
    await dash.shows('Apps (1)');
    dash.press('n');
    await dash.shows('New app');
    dash.type('q?2');
    await dash.shows('Name          q?2');
    expect(dash.exit).not.toHaveBeenCalled();
    expect(dash.screen()).not.toContain('Everywhere');
  });
});

describe('the size of the terminal', () => {
  it('a smaller terminal (60×16) still gets every screen within it', async () => {
    const dash = open({ columns: 60, rows: 16 });
    await dash.shows('Apps (1)');
    for (const index of [2, 3, 4, 5, 6]) {
      dash.press(String(index));
      await dash.shows(titles[SCREENS[index - 1]?.id ?? ''] as string);
    }
    dash.press('?');
    await dash.shows('Everywhere');
    dash.expectFits();
  });
});
