import { Button as HeadlessButton, type ButtonProps as HeadlessButtonProps } from '@headlessui/react';

type Variant = 'primary' | 'secondary' | 'danger' | 'ghost';

const variants: Record<Variant, string> = {
  primary: 'bg-indigo-700 text-white hover:bg-indigo-800 data-disabled:bg-indigo-400',
  secondary:
    'bg-white text-gray-900 ring-1 ring-inset ring-gray-300 hover:bg-gray-50 data-disabled:text-gray-500',
  danger: 'bg-red-700 text-white hover:bg-red-800 data-disabled:bg-red-400',
  ghost: 'text-gray-800 hover:bg-gray-100 data-disabled:text-gray-400',
};

export type ButtonProps = HeadlessButtonProps & { variant?: Variant; size?: 'sm' | 'md' };

export const buttonClass = (variant: Variant = 'secondary', size: 'sm' | 'md' = 'md') =>
  `inline-flex items-center justify-center gap-1.5 rounded-md font-medium whitespace-nowrap focus-ring data-disabled:cursor-not-allowed ${
    size === 'sm' ? 'px-2.5 py-1.5 text-sm' : 'px-3.5 py-2 text-sm'
  } ${variants[variant]}`;

/** Headless UI's Button (hover, focus and disabled states as data attributes), in our colours. */
export function Button({ variant = 'secondary', size = 'md', className = '', ...props }: ButtonProps) {
  return (
    <HeadlessButton
      type="button"
      {...props}
      className={`${buttonClass(variant, size)} ${typeof className === 'string' ? className : ''}`}
    />
  );
}
