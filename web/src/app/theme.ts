import type { ThemeConfig } from 'antd';

/** The product's look: a bold violet primary, rounded cards, a readable base size. */
export const theme: ThemeConfig = {
  token: {
    colorPrimary: '#6d28d9',
    colorLink: '#6d28d9',
    colorError: '#c81e1e',
    colorSuccess: '#15803d',
    // antd's default secondary text (45 % black) fails WCAG AA on the app's tinted background.
    colorTextDescription: '#595959',
    colorTextTertiary: '#595959',
    borderRadius: 10,
    fontFamily:
      "system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', 'Vazirmatn', Tahoma, sans-serif",
  },
  components: {
    Card: { borderRadiusLG: 14 },
  },
};

/**
 * The theme for the user's motion setting: antd's motion (fades, zooms, slides of dialogs,
 * toasts, tabs) is off when the system asks for reduced motion (prefers-reduced-motion).
 */
export function themeFor({ reducedMotion }: { reducedMotion: boolean }): ThemeConfig {
  return reducedMotion ? { ...theme, token: { ...theme.token, motion: false } } : theme;
}
